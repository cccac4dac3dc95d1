//! User priorities: HTCondor's accountant.
//!
//! The accountant keeps, per submitter and per accounting group, a *real
//! user priority* (RUP) that follows the resources in use with an
//! exponential decay, and a *priority factor*; their product is the
//! *effective user priority* (EUP) by which the negotiator shares the pool
//! (a smaller EUP gets a bigger share). At each update at time `now`:
//!
//! ```text
//! β   = 0.5 ^ ((now − last_update) / PRIORITY_HALFLIFE)
//! RUP = max(0.5, RUP·β + usage·(1 − β))
//! ```
//!
//! where `usage` is the weighted resources in use over the interval, exact
//! for matches that began or ended between updates (their *uncharged time*
//! is added or taken away). Usage is rebuilt from the claimed slots each
//! cycle ([`Accountant::check_matches`]). Every change is recorded in
//! HTCondor's own log format ([`crate::classad_log`]), so a log written by
//! HTCondor's negotiator can be read and one written here can be loaded by
//! it. Time is always a parameter: nothing here reads the clock.
//!
//! The seed manual's example: one user using 100 cores from t = 0 with a
//! one-day half-life has a RUP of 75 after two days.
//!
//! ```
//! use matchmaker::accountant::{Accountant, AccountantConfig};
//! use classad::ClassAd;
//!
//! let mut acct = Accountant::new(AccountantConfig::default());
//! let slot: ClassAd = r#"[ Name = "slot1@node"; StartdIpAddr = "<10.0.0.1:9618>";
//!     State = "Claimed"; RemoteUser = "alice@site"; SlotWeight = 100 ]"#.parse()?;
//! acct.update_priorities(0)?;
//! acct.check_matches(0, &[slot])?;
//! for hour in 1..=48 {
//!     acct.update_priorities(hour * 3600)?;
//! }
//! // 75 from the usage, plus a quarter of the starting minimum of 0.5.
//! let rup = acct.real_priority("alice@site");
//! assert!((rup - 75.125).abs() < 1e-4, "{rup}"); // reals are kept as the log rounds them
//! // EUP = RUP × the default factor, DEFAULT_PRIO_FACTOR = 1000.
//! assert!((acct.effective_priority("alice@site") - 75_125.0).abs() < 0.1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! This module holds the records and the priority update; the rest is
//! divided by concern: the settings (`config`), the matches and what is
//! read of slot ads (`matches`), `condor_userprio`'s edits (`admin`), the
//! log (`persistence`), the record types (`record`), and what
//! `condor_userprio` is given (`priority_rows`) and prints (`report`).

mod admin;
mod config;
mod matches;
mod persistence;
mod priority_rows;
mod record;
mod report;

use std::path::Path;

use crate::classad_log::{self, LogError, LogWriter, Records};
use crate::groups::ROOT;

pub use config::AccountantConfig;
pub use matches::resource_name;
pub(crate) use matches::SlotWeigher;
pub use priority_rows::{GroupQuotas, PriorityRow};
pub use record::{CustomerRecord, ResourceRecord, ACCOUNTANT_KEY, CUSTOMER_PREFIX, RESOURCE_PREFIX};
pub use report::UserprioTable;

use record::{format_real, logged_real, CustomerAttr, Number};

/// The smallest real user priority.
pub const MIN_PRIORITY: f64 = 0.5;
/// The smallest priority factor.
pub const MIN_PRIORITY_FACTOR: f64 = 1.0;
/// Submitter names starting with this get NICE_USER_PRIO_FACTOR.
pub const NICE_USER_PREFIX: &str = "nice-user";
/// The attribute a consumption-policy match carries its cost in.
pub const CP_MATCH_COST: &str = "_cp_match_cost";

/// What can go wrong in the accountant.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AccountantError {
    /// The log could not be read or written.
    #[error(transparent)]
    Log(#[from] LogError),
    /// An admin operation's argument is refused (the same checks as
    /// `condor_userprio`'s).
    #[error("{0}")]
    Invalid(String),
}

/// A record under a key the accountant does not know: key, type, attributes.
type OtherRecord = (String, String, Vec<(String, String)>);

/// The accountant: every record, and the log they are kept in.
#[derive(Debug)]
pub struct Accountant {
    config: AccountantConfig,
    customers: Vec<CustomerRecord>,
    /// Indexes into `customers`, found by the record's name (each name is
    /// stored once, in its record).
    customer_index: hashbrown::HashTable<usize>,
    resources: Vec<ResourceRecord>,
    /// `resources` by name (hashed with `name_hash`).
    resource_index: hashbrown::HashTable<usize>,
    /// Records under other keys, kept as they are.
    others: Vec<OtherRecord>,
    last_update: i64,
    /// Other attributes of the `Accountant.` record.
    accountant_other: Vec<(String, String)>,
    has_accountant_record: bool,
    log: Option<LogWriter>,
    max_log_size: u64,
    /// The transaction being built.
    pending: Records,
    /// Log problems met while writing, if any (reported by `take_warnings`).
    warnings: Vec<String>,
    /// The customer record a log being replayed set last.
    last_set: Option<usize>,
}

impl Accountant {
    /// An accountant with no records and no log (nothing is persisted).
    pub fn new(config: AccountantConfig) -> Self {
        let max_log_size = config.max_log_size;
        Accountant {
            config,
            customers: Vec::new(),
            customer_index: hashbrown::HashTable::new(),
            resources: Vec::new(),
            resource_index: hashbrown::HashTable::new(),
            others: Vec::new(),
            last_update: 0,
            accountant_other: Vec::new(),
            has_accountant_record: false,
            log: None,
            max_log_size,
            pending: Records::default(),
            warnings: Vec::new(),
            last_set: None,
        }
    }

    /// An accountant holding the priorities a `condor_userprio -allusers -l`
    /// ad shows (the one ad with `LastUpdate`, `Name1`, `Priority1`,
    /// `PriorityFactor1`, ...): each submitter's real priority (its
    /// effective priority over its factor), factor, ceiling, floor and
    /// accumulated usage, as of the ad's `LastUpdate`. Usage in progress is
    /// not taken from the ad: [`check_matches`](Accountant::check_matches)
    /// counts it from the slots.
    ///
    /// ```
    /// use matchmaker::accountant::{Accountant, AccountantConfig};
    /// let ad: classad::ClassAd = r#"[ LastUpdate = 1000; NumSubmittors = 1; Name1 = "amy@site";
    ///     Priority1 = 1500.0; PriorityFactor1 = 1000.0; Ceiling1 = 20; Floor1 = 0 ]"#.parse()?;
    /// let acct = Accountant::from_userprio_ad(AccountantConfig::default(), &ad)?;
    /// assert_eq!(acct.real_priority("amy@site"), 1.5);
    /// assert_eq!(acct.ceiling("amy@site"), Some(20));
    /// assert_eq!(acct.last_update(), 1000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_userprio_ad(config: AccountantConfig, ad: &classad::ClassAd) -> Result<Self, AccountantError> {
        let (rows, last_update) = PriorityRow::from_userprio_ad(ad);
        let mut acct = Self::new(config);
        acct.last_update = last_update;
        // Group rows are left out: their usage is recounted from the slots,
        // and the negotiator reads no group's priority.
        for row in rows.iter().filter(|r| r.name != ROOT && !r.is_group) {
            let name = row.name.as_str();
            if row.priority_factor >= MIN_PRIORITY_FACTOR {
                acct.set_priority_factor(name, row.priority_factor)?;
            }
            let factor = acct.priority_factor(name);
            acct.set_priority(name, row.effective_priority / factor)?;
            if row.ceiling >= 0 {
                acct.set_ceiling(name, row.ceiling)?;
            }
            if row.floor > 0 {
                acct.set_floor(name, row.floor)?;
            }
            acct.set_accumulated_usage(name, row.accumulated_usage)?;
            if row.begin_usage_time > 0 {
                acct.set_begin_time(name, row.begin_usage_time)?;
            }
            if row.last_usage_time > 0 {
                acct.set_last_time(name, row.last_usage_time)?;
            }
        }
        Ok(acct)
    }

    /// The settings.
    pub fn config(&self) -> &AccountantConfig {
        &self.config
    }

    /// New settings, as a reconfig gives condor_negotiator's accountant:
    /// the records stay, and the next priority update decays with the new
    /// half-life; new records get the new default factors.
    ///
    /// ```
    /// use matchmaker::accountant::{Accountant, AccountantConfig};
    /// let mut acct = Accountant::new(AccountantConfig::default());
    /// let mut config = AccountantConfig::default();
    /// config.half_life = 600.0;
    /// acct.set_config(config);
    /// assert_eq!(acct.config().half_life, 600.0);
    /// ```
    pub fn set_config(&mut self, config: AccountantConfig) {
        self.max_log_size = config.max_log_size;
        self.config = config;
    }

    /// When priorities were last updated (epoch seconds; 0: never).
    pub fn last_update(&self) -> i64 {
        self.last_update
    }

    /// The record of a submitter or group.
    pub fn customer(&self, name: &str) -> Option<&CustomerRecord> {
        self.customer_at(name).map(|i| &self.customers[i])
    }

    /// Every submitter and group record, in the order they were created.
    pub fn customers(&self) -> &[CustomerRecord] {
        &self.customers
    }

    /// The record of a claimed slot (`<Name>@<StartdIpAddr>`).
    pub fn resource(&self, name: &str) -> Option<&ResourceRecord> {
        self.resource_at(name).map(|i| &self.resources[i])
    }

    /// Every claimed-slot record.
    pub fn resources(&self) -> &[ResourceRecord] {
        &self.resources
    }

    /// Warnings about the log met since the last call (a failed compaction).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// The path of the log being written, if any.
    pub fn log_path(&self) -> Option<&Path> {
        self.log.as_ref().map(|l| l.path())
    }

    // ----- reading priorities -------------------------------------------

    /// A submitter's real priority (RUP): its `Priority`, at least 0.5.
    pub fn real_priority(&self, name: &str) -> f64 {
        self.customer(name).and_then(|c| c.priority).map_or(MIN_PRIORITY, |p| p.max(MIN_PRIORITY))
    }

    /// A submitter's priority factor: the one set for it, or else the
    /// default for its name (nice user, its group's GROUP_PRIO_FACTOR, a
    /// remote domain, DEFAULT_PRIO_FACTOR).
    pub fn priority_factor(&self, name: &str) -> f64 {
        match self.customer(name).and_then(|c| c.priority_factor) {
            Some(f) if f >= MIN_PRIORITY_FACTOR => f,
            _ => self.default_factor(name),
        }
    }

    /// A submitter's effective priority: RUP × factor.
    pub fn effective_priority(&self, name: &str) -> f64 {
        self.real_priority(name) * self.priority_factor(name)
    }

    /// A submitter's ceiling: most weighted resources it may use, `None` for
    /// no ceiling.
    pub fn ceiling(&self, name: &str) -> Option<i64> {
        self.customer(name).and_then(|c| c.ceiling).filter(|&c| c >= 0)
    }

    /// A submitter's floor: weighted resources it is served first (0: none).
    pub fn floor(&self, name: &str) -> i64 {
        self.customer(name).and_then(|c| c.floor).unwrap_or(0).max(0)
    }

    /// Weighted resources a submitter or group uses now.
    pub fn weighted_resources_used(&self, name: &str) -> f64 {
        self.customer(name).and_then(|c| c.weighted_resources_used).unwrap_or(0.0)
    }

    /// Slots a submitter or group uses now.
    pub fn resources_used(&self, name: &str) -> i64 {
        self.customer(name).and_then(|c| c.resources_used).unwrap_or(0)
    }

    /// The group a submitter's usage is also charged to (`<none>` without groups).
    pub fn group_of(&self, name: &str) -> &str {
        self.config.groups.name(self.config.groups.assigned_group(name))
    }

    fn default_factor(&self, name: &str) -> f64 {
        let factor = if name.starts_with(NICE_USER_PREFIX) {
            self.config.nice_user_prio_factor
        } else if let Some(&f) = (!self.config.group_prio_factors.is_empty())
            .then(|| self.config.group_prio_factors.get(&self.group_of(name).to_lowercase()))
            .flatten()
            .filter(|&&f| f != 0.0)
        {
            f
        } else if self.config.local_domain.as_deref().is_some_and(|d| !d.is_empty() && domain(name) != d) {
            self.config.remote_prio_factor
        } else {
            self.config.default_prio_factor
        };
        factor.max(MIN_PRIORITY_FACTOR)
    }

    /// The effective priority as the negotiator reads it, with HTCondor's
    /// side effects: a record without a factor gets its default written, and
    /// one whose priority is below 0.5 gets 0.5 written (creating the record
    /// if needed).
    pub fn effective_priority_mut(&mut self, name: &str) -> Result<f64, AccountantError> {
        let factor = self.priority_factor(name);
        if self.customer(name).and_then(|c| c.priority_factor).is_none_or(|f| f < MIN_PRIORITY_FACTOR) {
            self.set_customer_real(name, CustomerAttr::PriorityFactor, factor)?;
        }
        let priority = self.customer(name).and_then(|c| c.priority).unwrap_or(MIN_PRIORITY);
        let priority = if priority < MIN_PRIORITY {
            self.set_customer_real(name, CustomerAttr::Priority, MIN_PRIORITY)?;
            MIN_PRIORITY
        } else {
            priority
        };
        self.commit(true)?;
        Ok(priority * factor)
    }

    // ----- the update ------------------------------------------------------

    /// Updates every priority to time `now`: the RUP decays toward the usage
    /// of the interval since the last update, usage accumulates, uncharged
    /// time is cleared. Nothing happens when no time has passed; a clock that
    /// went backwards only moves the last update time (as HTCondor does).
    pub fn update_priorities(&mut self, now: i64) -> Result<(), AccountantError> {
        let time_passed = now - self.last_update;
        if time_passed == 0 {
            return Ok(());
        }
        if time_passed < 0 {
            self.last_update = now;
            return Ok(());
        }
        let aging = 0.5f64.powf(time_passed as f64 / self.config.half_life);
        self.last_update = now;
        self.has_accountant_record_or_create()?;
        if self.log.is_some() {
            self.pending.set(ACCOUNTANT_KEY, "LastUpdateTime", &now.to_string())?;
        }
        let mut key = String::new();
        // Some 200 bytes of records per customer at most.
        if self.log.is_some() {
            self.pending.reserve(self.customers.len() * 200);
        }
        for index in 0..self.customers.len() {
            self.update_one(index, now, time_passed, aging, &mut key)?;
        }
        self.commit(true)?;
        self.maybe_compact();
        Ok(())
    }

    fn update_one(
        &mut self,
        index: usize,
        now: i64,
        time_passed: i64,
        aging: f64,
        key: &mut String,
    ) -> Result<(), AccountantError> {
        let c = &mut self.customers[index];
        key.clear();
        key.push_str(CUSTOMER_PREFIX);
        key.push_str(&c.name);
        let key = key.as_str();
        classad_log::check_key(key)?;
        let old_priority = c.priority.unwrap_or(0.0).max(MIN_PRIORITY);
        let uncharged = c.uncharged_time.unwrap_or(0);
        let accumulated = c.accumulated_usage.unwrap_or(0.0);
        let weighted_uncharged = c.weighted_uncharged_time.unwrap_or(0.0);
        let weighted_accumulated = c.weighted_accumulated_usage.unwrap_or(accumulated);
        let begin = c.begin_usage_time.unwrap_or(0);
        let used = c.resources_used.unwrap_or(0);
        let weighted_used = c.weighted_resources_used.unwrap_or(0.0);
        let tp = time_passed as f64;
        let recent = used as f64 + uncharged as f64 / tp;
        let mut weighted_recent = weighted_used + weighted_uncharged / tp;
        // A group's priority follows the usage of its whole subtree.
        let hier = c.hier_weighted_resources_used.unwrap_or(0.0);
        if hier > 0.0 {
            weighted_recent = hier;
        }
        let priority = (old_priority * aging + weighted_recent * (1.0 - aging)).max(MIN_PRIORITY);
        let new_accumulated = accumulated + (used * time_passed) as f64 + uncharged as f64;
        let new_weighted_accumulated = weighted_accumulated + weighted_used * tp + weighted_uncharged;
        // The records are written only when there is a log to take them.
        let mut p = self.log.is_some().then_some(&mut self.pending);
        // What is kept is what the log says: reals rounded by `%f`.
        let mut real = |name: &str, value: f64| match p.as_mut() {
            Some(p) => p.set_real_checked(key, name, value),
            None => classad_log::read_back(value),
        };
        // Compared with the clamped old value, as HTCondor does: a missing
        // priority that stays at 0.5 is not written.
        if priority != old_priority {
            c.priority = Some(real("Priority", priority));
        }
        if new_accumulated != accumulated {
            c.accumulated_usage = Some(real("AccumulatedUsage", new_accumulated));
        }
        if new_weighted_accumulated != weighted_accumulated {
            c.weighted_accumulated_usage = Some(real("WeightedAccumulatedUsage", new_weighted_accumulated));
        }
        let mut itoa = [0u8; 20];
        let mut set = |name: &str, text: &str| match p.as_mut() {
            Some(p) => p.set(key, name, text),
            None => Ok(()),
        };
        if new_accumulated > 0.0 && begin == 0 {
            c.begin_usage_time = Some(now);
            set("BeginUsageTime", int_text(now, &mut itoa))?;
        }
        if recent > 0.0 {
            c.last_usage_time = Some(now);
            set("LastUsageTime", int_text(now, &mut itoa))?;
        }
        if c.uncharged_time != Some(0) {
            c.uncharged_time = Some(0);
            set("UnchargedTime", "0")?;
        }
        if c.weighted_uncharged_time != Some(0.0) {
            c.weighted_uncharged_time = Some(0.0);
            set("WeightedUnchargedTime", "0.000000")?;
        }
        Ok(())
    }

    /// Makes a record for every configured group, `<none>` included, as the
    /// negotiator does at start-up (their factor is written then).
    fn ensure_group_records(&mut self) -> Result<(), AccountantError> {
        let names: Vec<String> = self.config.groups.ids().map(|g| self.config.groups.name(g).to_string()).collect();
        for name in names {
            self.effective_priority_mut(&name)?;
        }
        Ok(())
    }

    fn has_accountant_record_or_create(&mut self) -> Result<(), AccountantError> {
        if !self.has_accountant_record {
            if self.log.is_some() {
                self.pending.new_ad(ACCOUNTANT_KEY, "*")?;
            }
            self.has_accountant_record = true;
        }
        Ok(())
    }

    fn ensure_customer(&mut self, name: &str) -> Result<usize, AccountantError> {
        if let Some(i) = self.customer_at(name) {
            return Ok(i);
        }
        if self.log.is_some() {
            self.pending.new_ad(&format!("{CUSTOMER_PREFIX}{name}"), "*")?;
        } else {
            // Without a log as well: a record that no log could hold.
            classad_log::check_length("submitter name", &format!("{CUSTOMER_PREFIX}{name}"))?;
        }
        Ok(self.insert_customer(CustomerRecord::new(name)))
    }

    /// The index of a customer's record.
    fn customer_at(&self, name: &str) -> Option<usize> {
        self.customer_index.find(name_hash(name), |&i| self.customers[i].name == name).copied()
    }

    fn insert_customer(&mut self, record: CustomerRecord) -> usize {
        let i = self.customers.len();
        let hash = name_hash(&record.name);
        self.customers.push(record);
        let customers = &self.customers;
        self.customer_index.insert_unique(hash, i, |&j| name_hash(&customers[j].name));
        i
    }

    fn remove_customer_at(&mut self, index: usize) {
        let hash = name_hash(&self.customers[index].name);
        if let Ok(entry) = self.customer_index.find_entry(hash, |&i| i == index) {
            entry.remove();
        }
        self.customers.remove(index);
        // The records after it moved down by one.
        for (i, c) in self.customers.iter().enumerate().skip(index) {
            if let Some(slot) = self.customer_index.find_mut(name_hash(&c.name), |&j| j == i + 1) {
                *slot = i;
            }
        }
    }

    /// Adds a match of weight `weight` to a submitter's or group's usage,
    /// the time since the last update taken off its uncharged time. A
    /// group's weighted usage is written before its count, as HTCondor does.
    fn charge(&mut self, name: &str, weight: f64, since_update: i64, group: bool) -> Result<(), AccountantError> {
        let i = self.ensure_customer(name)?;
        let c = &self.customers[i];
        let (used, weighted, uncharged, weighted_uncharged) = (
            c.resources_used.unwrap_or(0),
            c.weighted_resources_used.unwrap_or(0.0),
            c.uncharged_time.unwrap_or(0),
            c.weighted_uncharged_time.unwrap_or(0.0),
        );
        if group {
            self.set_real_at(i, CustomerAttr::WeightedResourcesUsed, weighted + weight)?;
            self.set_int_at(i, CustomerAttr::ResourcesUsed, used + 1)?;
        } else {
            self.set_int_at(i, CustomerAttr::ResourcesUsed, used + 1)?;
            self.set_real_at(i, CustomerAttr::WeightedResourcesUsed, weighted + weight)?;
        }
        self.set_int_at(i, CustomerAttr::UnchargedTime, uncharged - since_update)?;
        self.set_real_at(i, CustomerAttr::WeightedUnchargedTime, weighted_uncharged - since_update as f64 * weight)
    }

    fn set_customer_real(&mut self, name: &str, attr: CustomerAttr, value: f64) -> Result<(), AccountantError> {
        let i = self.ensure_customer(name)?;
        self.set_real_at(i, attr, value)
    }

    fn set_customer_int(&mut self, name: &str, attr: CustomerAttr, value: i64) -> Result<(), AccountantError> {
        let i = self.ensure_customer(name)?;
        self.set_int_at(i, attr, value)
    }

    /// Sets a real attribute of customer record `i`.
    fn set_real_at(&mut self, i: usize, attr: CustomerAttr, value: f64) -> Result<(), AccountantError> {
        // Without a log, nothing needs the text: the record takes the
        // number the text would read back as.
        if self.log.is_some() {
            self.set_customer_text(i, attr.name(), &format_real(value))
        } else {
            self.customers[i].set_number(attr, logged_real(value));
            Ok(())
        }
    }

    /// Sets an integer attribute of customer record `i`.
    fn set_int_at(&mut self, i: usize, attr: CustomerAttr, value: i64) -> Result<(), AccountantError> {
        if self.log.is_some() {
            self.set_customer_text(i, attr.name(), &value.to_string())
        } else {
            self.customers[i].set_number(attr, Number::Int(value));
            Ok(())
        }
    }

    /// Sets an attribute of record `i` from its text, logged when there is a log.
    fn set_customer_text(&mut self, i: usize, attr: &str, text: &str) -> Result<(), AccountantError> {
        if self.log.is_some() {
            self.pending.set(&format!("{CUSTOMER_PREFIX}{}", self.customers[i].name), attr, text)?;
        }
        self.customers[i].set_text(attr, text);
        Ok(())
    }

    /// The index of a claimed slot's record, made if missing.
    fn ensure_resource(&mut self, name: &str) -> Result<usize, AccountantError> {
        if let Some(i) = self.resource_at(name) {
            return Ok(i);
        }
        if self.log.is_some() {
            self.pending.new_ad(&format!("{RESOURCE_PREFIX}{name}"), "*")?;
        } else {
            classad_log::check_length("slot name", &format!("{RESOURCE_PREFIX}{name}"))?;
        }
        Ok(self.insert_resource(ResourceRecord::new(name)))
    }

    /// The index of a claimed slot's record.
    fn resource_at(&self, name: &str) -> Option<usize> {
        self.resource_index.find(name_hash(name), |&i| self.resources[i].name == name).copied()
    }

    fn insert_resource(&mut self, record: ResourceRecord) -> usize {
        let i = self.resources.len();
        let hash = name_hash(&record.name);
        self.resources.push(record);
        let resources = &self.resources;
        self.resource_index.insert_unique(hash, i, |&j| name_hash(&resources[j].name));
        i
    }

    fn destroy_resource(&mut self, name: &str, key: &str) -> Result<(), AccountantError> {
        if self.log.is_some() {
            self.pending.destroy(key)?;
        }
        self.forget_resource(name);
        Ok(())
    }

    /// Drops a resource record from memory (the log is the caller's).
    fn forget_resource(&mut self, name: &str) {
        let Some(i) = self.resource_at(name) else {
            return;
        };
        if let Ok(entry) = self.resource_index.find_entry(name_hash(name), |&j| j == i) {
            entry.remove();
        }
        self.resources.swap_remove(i);
        // The last record moved into the gap.
        let last = self.resources.len();
        if i < last {
            if let Some(slot) = self.resource_index.find_mut(name_hash(&self.resources[i].name), |&j| j == last) {
                *slot = i;
            }
        }
    }
}

/// The hash a customer's name is indexed by.
fn name_hash(name: &str) -> u64 {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(name.as_bytes());
    hasher.finish()
}

/// Decimal text of an integer, written into `buf` (no allocation).
fn int_text(value: i64, buf: &mut [u8; 20]) -> &str {
    let mut n = value.unsigned_abs();
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if value < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    std::str::from_utf8(&buf[i..]).unwrap_or("0")
}

/// The domain of a submitter name: what follows its first `@`.
fn domain(name: &str) -> &str {
    name.find('@').map_or("", |i| &name[i + 1..])
}

/// `a.b.c`, `a.b`, `a`: a group and its ancestors by name (not the root).
fn group_path(group: &str) -> impl Iterator<Item = &str> {
    // HTCondor walks the name's dotted prefixes; `<none>` has none but itself.
    let dotted = group != ROOT;
    std::iter::successors(Some(group), move |part| {
        dotted.then(|| part.bytes().rposition(|b| b == b'.').map(|dot| &part[..dot])).flatten()
    })
}

#[cfg(test)]
mod tests;
