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

mod record;
mod report;

use std::path::Path;

use rustc_hash::FxHashMap;

use crate::classad_log::{self, LoadReport, LogError, LogTable, LogWriter, Records};
use crate::groups::{GroupTree, ROOT};

pub use record::{CustomerRecord, ResourceRecord, ACCOUNTANT_KEY, CUSTOMER_PREFIX, RESOURCE_PREFIX};
pub use report::{GroupQuotas, PriorityRow, UserprioTable};

use record::{format_real, format_string, logged_real, CustomerAttr, Number};

/// The smallest real user priority.
pub const MIN_PRIORITY: f64 = 0.5;
/// The smallest priority factor.
pub const MIN_PRIORITY_FACTOR: f64 = 1.0;
/// Submitter names starting with this get NICE_USER_PRIO_FACTOR.
pub const NICE_USER_PREFIX: &str = "nice-user";
/// The attribute a consumption-policy match carries its cost in.
pub const CP_MATCH_COST: &str = "_cp_match_cost";

/// The accountant's settings, with HTCondor's defaults.
#[derive(Debug, Clone)]
pub struct AccountantConfig {
    /// PRIORITY_HALFLIFE, seconds (86400).
    pub half_life: f64,
    /// DEFAULT_PRIO_FACTOR (1000).
    pub default_prio_factor: f64,
    /// NICE_USER_PRIO_FACTOR (1e10), for submitters named `nice-user*`.
    pub nice_user_prio_factor: f64,
    /// REMOTE_PRIO_FACTOR (1e7), for submitters outside `local_domain`.
    pub remote_prio_factor: f64,
    /// ACCOUNTANT_LOCAL_DOMAIN (unset: every submitter is local).
    pub local_domain: Option<String>,
    /// `GROUP_PRIO_FACTOR_<group>`, by lower-cased group name.
    pub group_prio_factors: FxHashMap<String, f64>,
    /// The configured accounting groups (GROUP_NAMES).
    pub groups: GroupTree,
    /// NEGOTIATOR_USE_SLOT_WEIGHTS (true): charge a slot's `SlotWeight`
    /// rather than 1.
    pub use_slot_weights: bool,
    /// SLOT_WEIGHT (`Cpus`), evaluated against a slot ad that does not
    /// advertise `SlotWeight` (a startd always does; a synthetic ad may not).
    pub slot_weight: Option<classad::Expr>,
    /// NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES (false): a claimed but
    /// suspended slot is not charged.
    pub discount_suspended: bool,
    /// MAX_ACCOUNTANT_DATABASE_SIZE, bytes (1,000,000): the log is compacted
    /// past this size, and the limit then becomes at least twice the
    /// compacted size.
    pub max_log_size: u64,
}

impl Default for AccountantConfig {
    fn default() -> Self {
        AccountantConfig {
            half_life: 86_400.0,
            default_prio_factor: 1000.0,
            nice_user_prio_factor: 1e10,
            remote_prio_factor: 1e7,
            local_domain: None,
            group_prio_factors: FxHashMap::default(),
            groups: GroupTree::default(),
            use_slot_weights: true,
            slot_weight: "Cpus".parse().ok(),
            discount_suspended: false,
            max_log_size: 1_000_000,
        }
    }
}

impl AccountantConfig {
    /// The accountant's knobs from an HTCondor configuration (HTCondor's
    /// defaults for those it does not set): PRIORITY_HALFLIFE,
    /// DEFAULT_PRIO_FACTOR, NICE_USER_PRIO_FACTOR, REMOTE_PRIO_FACTOR,
    /// ACCOUNTANT_LOCAL_DOMAIN, GROUP_NAMES and each group's
    /// `GROUP_PRIO_FACTOR_<group>`, NEGOTIATOR_USE_SLOT_WEIGHTS, SLOT_WEIGHT,
    /// NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES, MAX_ACCOUNTANT_DATABASE_SIZE.
    /// A bad value is an error naming the file and line that set it.
    ///
    /// ```
    /// use matchmaker::accountant::AccountantConfig;
    /// use matchmaker::config::Config;
    /// let config = Config::parse_str(
    ///     "PRIORITY_HALFLIFE = 3600\nGROUP_NAMES = group_a, group_b\nGROUP_PRIO_FACTOR_group_a = 10\n",
    ///     "negotiator.conf",
    /// )?;
    /// let acct = AccountantConfig::from_config(&config)?;
    /// assert_eq!(acct.half_life, 3600.0);
    /// assert_eq!(acct.default_prio_factor, 1000.0);
    /// assert_eq!(acct.group_prio_factors["group_a"], 10.0);
    /// assert_eq!(acct.groups.len(), 3); // <none> and the two groups
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn from_config(config: &crate::config::Config) -> Result<Self, crate::config::ConfigError> {
        let text = |name: &str| config.lookup(name).map(|l| l.value.trim().to_string()).filter(|v| !v.is_empty());
        let names: Vec<String> = text("GROUP_NAMES")
            .map(|v| v.split([',', ' ', '\t']).filter(|n| !n.is_empty()).map(str::to_string).collect())
            .unwrap_or_default();
        let groups = GroupTree::new(&names);
        let mut group_prio_factors = FxHashMap::default();
        for g in groups.ids().skip(1) {
            let name = groups.name(g);
            let knob = format!("GROUP_PRIO_FACTOR_{name}");
            if config.lookup(&knob).is_some_and(|l| !l.value.trim().is_empty()) {
                group_prio_factors.insert(name.to_lowercase(), config.get_real(&knob)?);
            }
        }
        Ok(AccountantConfig {
            half_life: config.get_real("PRIORITY_HALFLIFE")?,
            default_prio_factor: config.get_real("DEFAULT_PRIO_FACTOR")?,
            nice_user_prio_factor: config.get_real("NICE_USER_PRIO_FACTOR")?,
            remote_prio_factor: config.get_real("REMOTE_PRIO_FACTOR")?,
            local_domain: text("ACCOUNTANT_LOCAL_DOMAIN"),
            group_prio_factors,
            groups,
            use_slot_weights: config.get_bool("NEGOTIATOR_USE_SLOT_WEIGHTS")?,
            slot_weight: config.get_expr_opt("SLOT_WEIGHT")?,
            discount_suspended: config.get_bool("NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES")?,
            max_log_size: config.get_int("MAX_ACCOUNTANT_DATABASE_SIZE")?.max(0) as u64,
        })
    }
}

/// What can go wrong in the accountant.
#[derive(Debug, thiserror::Error)]
pub enum AccountantError {
    /// The log could not be read or written.
    #[error(transparent)]
    Log(#[from] LogError),
    /// An admin operation's argument is refused (the same checks as
    /// `condor_userprio`'s).
    #[error("{0}")]
    Invalid(String),
}

/// A slot's state, as far as the accountant cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlotState {
    Claimed,
    Preempting,
    Matched,
    Other,
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

    /// Loads the accountant's log at `path` (HTCondor's `Accountantnew.log`,
    /// or one written here) and keeps appending to it. A missing file starts
    /// a new log. A torn tail (a crash in the middle of a write) is ignored
    /// with a warning in the report, and the log is compacted at once so that
    /// new records never follow it; `now` dates a new log's header.
    ///
    /// As HTCondor's negotiator does when it starts, a record is made for
    /// every configured group (and `<none>`) that has none.
    pub fn open(config: AccountantConfig, path: &Path, now: i64) -> Result<(Self, LoadReport), AccountantError> {
        let (mut acct, report) = Self::load(config, path)?;
        let log = LogWriter::open(path, &report, now, || acct.snapshot())?;
        acct.log = Some(log);
        acct.ensure_group_records()?;
        Ok((acct, report))
    }

    /// Reads the log at `path` without writing to it (a missing file is an
    /// empty accountant). Changes made afterwards stay in memory.
    pub fn load(config: AccountantConfig, path: &Path) -> Result<(Self, LoadReport), AccountantError> {
        let mut acct = Self::new(config);
        acct.reserve_for(std::fs::metadata(path).map_or(0, |m| m.len() as usize));
        let report = classad_log::read_log(path, &mut acct)?;
        Ok((acct, report))
    }

    /// Reads a log from its text, without a file (see [`Accountant::load`]).
    pub fn from_log_text(config: AccountantConfig, text: &str) -> Result<(Self, LoadReport), AccountantError> {
        let mut acct = Self::new(config);
        acct.reserve_for(text.len());
        let report = classad_log::read_log_str(text, &mut acct)?;
        Ok((acct, report))
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

    /// Room for the records of a log of `bytes` bytes (a compacted record
    /// takes some 700 bytes), so that loading does not rehash.
    fn reserve_for(&mut self, bytes: usize) {
        let records = bytes / 1024;
        self.customers.reserve(records);
        let customers = &self.customers;
        self.customer_index.reserve(records, |&i| name_hash(&customers[i].name));
    }

    /// The settings.
    pub fn config(&self) -> &AccountantConfig {
        &self.config
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

    // ----- matches -----------------------------------------------------------

    /// Rebuilds usage from the slot ads of the pool at time `now`, as the
    /// negotiator does at the start of each cycle: a recorded match whose
    /// slot is gone, or no longer claimed (or matched) by the same submitter,
    /// is removed; a claimed slot with no record is added, charged to its
    /// `AccountingGroup`, else its `RemoteUser`.
    pub fn check_matches<A: std::borrow::Borrow<classad::ClassAd>>(
        &mut self,
        now: i64,
        slots: &[A],
    ) -> Result<(), AccountantError> {
        let names: Vec<String> = slots.iter().map(|slot| resource_name(slot.borrow())).collect();
        self.check_matches_named(now, slots, &names)
    }

    /// [`check_matches`](Self::check_matches) with each slot's
    /// [`resource_name`] already known (`names[i]` of `slots[i]`: a
    /// negotiator remembers those of the slots it saw).
    pub(crate) fn check_matches_named<A: std::borrow::Borrow<classad::ClassAd>, N: AsRef<str>>(
        &mut self,
        now: i64,
        slots: &[A],
        names: &[N],
    ) -> Result<(), AccountantError> {
        // Room for a record of every slot, as a cycle may match them all.
        self.resources.reserve(slots.len());
        let resources = &self.resources;
        self.resource_index.reserve(slots.len(), |&i| name_hash(&resources[i].name));
        let mut by_name: FxHashMap<&str, usize> = FxHashMap::default();
        if !self.resources.is_empty() {
            by_name.reserve(slots.len());
            for (i, name) in names.iter().enumerate() {
                by_name.entry(name.as_ref()).or_insert(i);
            }
        }
        let gone: Vec<String> = self
            .resources
            .iter()
            .filter(|r| match by_name.get(r.name.as_str()) {
                None => true,
                Some(&i) => !self.claimed_or_matched_by(slots[i].borrow(), r.remote_user.as_deref().unwrap_or("")),
            })
            .map(|r| r.name.clone())
            .collect();
        for name in gone {
            self.remove_match(&name, now)?;
        }
        for (slot, name) in slots.iter().zip(names) {
            let slot: &classad::ClassAd = slot.borrow();
            if let Some(user) = self.claimant(slot) {
                // (A match recorded already for the same submitter stays as
                // it is: nothing to add.)
                let recorded = slot.lookup(slot_names().cp_match_cost).is_none()
                    && self.resource(name.as_ref()).and_then(|r| r.remote_user.as_deref()) == Some(user.as_str());
                if !recorded {
                    self.add_match_named(&user, slot, name.as_ref().to_string(), now)?;
                }
            }
        }
        Ok(())
    }

    fn slot_state(slot: &classad::ClassAd) -> SlotState {
        let state = slot_names().state;
        // Written as a string by every startd: read without evaluating.
        let evaluated;
        let text = match slot.lookup(state).map(classad::Expr::as_literal) {
            None => return SlotState::Other,
            Some(Some(classad::Literal::Str(s))) => Some(s.as_str()),
            Some(_) => {
                evaluated = attr_string(slot, state);
                evaluated.as_deref()
            }
        };
        match text {
            Some("Claimed") => SlotState::Claimed,
            Some("Preempting") => SlotState::Preempting,
            Some("Matched") => SlotState::Matched,
            _ => SlotState::Other,
        }
    }

    fn suspended(&self, slot: &classad::ClassAd) -> bool {
        self.config.discount_suspended
            && attr_string(slot, slot_names().activity).is_none_or(|a| a.eq_ignore_ascii_case("Suspended"))
    }

    /// The submitter a claimed (or preempting) slot is charged to.
    fn claimant(&self, slot: &classad::ClassAd) -> Option<String> {
        match Self::slot_state(slot) {
            SlotState::Claimed | SlotState::Preempting => {}
            _ => return None,
        }
        let user =
            attr_string(slot, slot_names().accounting_group).or_else(|| attr_string(slot, slot_names().remote_user))?;
        if self.suspended(slot) {
            return None;
        }
        Some(user)
    }

    fn claimed_or_matched_by(&self, slot: &classad::ClassAd, customer: &str) -> bool {
        match Self::slot_state(slot) {
            SlotState::Matched => return true,
            SlotState::Claimed | SlotState::Preempting => {}
            SlotState::Other => return false,
        }
        let Some(user) =
            attr_string(slot, slot_names().accounting_group).or_else(|| attr_string(slot, slot_names().remote_user))
        else {
            return false;
        };
        user == customer && !self.suspended(slot)
    }

    /// What [`slot_weight`](Self::slot_weight) reads besides the slot, as
    /// text: the same text, the same weight for the same ad.
    pub(crate) fn slot_weight_basis(&self) -> String {
        match (&self.config.slot_weight, self.config.use_slot_weights) {
            (_, false) => "off".to_string(),
            (None, true) => "on".to_string(),
            (Some(expr), true) => format!("on: {expr}"),
        }
    }

    /// The weight charged for a slot: its `SlotWeight` (1 when it is not a
    /// non-negative number, or when slot weights are off).
    pub fn slot_weight(&self, slot: &classad::ClassAd) -> f64 {
        weigh(self.config.use_slot_weights, self.config.slot_weight.as_ref(), slot)
    }

    /// How the accountant weighs slots ([`slot_weight`](Self::slot_weight)),
    /// apart from the accountant: for work done while it is busy.
    pub(crate) fn weigher(&self) -> SlotWeigher {
        SlotWeigher { on: self.config.use_slot_weights, default: self.config.slot_weight.clone() }
    }

    /// Records that `customer` was matched with `slot` at time `now`: the
    /// slot's weight is added to the customer's and its group's usage, with
    /// the time since the last update taken off (it was not in use then).
    /// A slot already charged to another customer is first removed from it;
    /// one already charged to this customer is left alone.
    pub fn add_match(&mut self, customer: &str, slot: &classad::ClassAd, now: i64) -> Result<(), AccountantError> {
        self.add_match_named(customer, slot, resource_name(slot), now)
    }

    /// [`add_match`](Self::add_match) with the slot's [`resource_name`]
    /// already known (the negotiator reads every slot's once, a share per
    /// thread, rather than one by one as it matches them).
    pub(crate) fn add_match_named(
        &mut self,
        customer: &str,
        slot: &classad::ClassAd,
        mut resource: String,
        now: i64,
    ) -> Result<(), AccountantError> {
        let weight;
        let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
        let cp_cost =
            match slot.lookup(slot_names().cp_match_cost).map(|e| classad::EvalContext::new(&opts).my(slot).eval(e)) {
                Some(classad::Value::Int(i)) => Some(i as f64),
                Some(classad::Value::Real(r)) => Some(r),
                _ => None,
            };
        if let Some(cost) = cp_cost {
            // A consumption-policy match: one pseudo-resource per match.
            let count = self.resource(&resource).and_then(|r| r.num_cp_matches).unwrap_or(0);
            let key = format!("{RESOURCE_PREFIX}{resource}");
            let i = self.ensure_resource(&resource)?;
            if self.log.is_some() {
                self.pending.set(&key, "NumCpMatches", &(count + 1).to_string())?;
            }
            self.resources[i].num_cp_matches = Some(count + 1);
            resource = format!("{resource}_cp_match_{count:03}");
            weight = cost;
        } else {
            if let Some(user) = self.resource(&resource).and_then(|r| r.remote_user.as_deref()) {
                if user == customer {
                    return Ok(());
                }
                self.remove_match(&resource, now)?;
            }
            weight = self.slot_weight(slot);
        }
        let since_update = now - self.last_update;
        self.charge(customer, weight, since_update, false)?;
        let group = self.group_of(customer).to_string();
        self.charge(&group, weight, since_update, true)?;
        for part in group_path(&group) {
            let hier = self.customer(part).and_then(|c| c.hier_weighted_resources_used).unwrap_or(0.0);
            self.set_customer_real(part, CustomerAttr::HierWeightedResourcesUsed, hier + weight)?;
        }
        let limits = attr_string(slot, slot_names().matched_concurrency_limits);
        let i = match self.resource_at(&resource) {
            Some(i) => i,
            None => {
                if self.log.is_some() {
                    self.pending.new_ad(&format!("{RESOURCE_PREFIX}{resource}"), "*")?;
                }
                self.insert_resource(ResourceRecord { name: resource, ..ResourceRecord::default() })
            }
        };
        if self.log.is_some() {
            let key = format!("{RESOURCE_PREFIX}{}", self.resources[i].name);
            self.pending.set(&key, "RemoteUser", &format_string(customer))?;
            self.pending.set(&key, "SlotWeight", &format_real(weight))?;
            self.pending.set(&key, "StartTime", &now.to_string())?;
            if let Some(limits) = &limits {
                self.pending.set(&key, "MatchedConcurrencyLimits", &format_string(limits))?;
            }
        }
        let r = &mut self.resources[i];
        r.remote_user = Some(customer.to_string());
        r.other.retain(|(n, _)| !n.eq_ignore_ascii_case("SlotWeight"));
        r.slot_weight = Some(logged_real(weight).as_f64());
        r.start_time = Some(now);
        if limits.is_some() {
            r.matched_concurrency_limits = limits;
        }
        self.commit(false)
    }

    /// Records that the match on slot `resource` (`<Name>@<StartdIpAddr>`)
    /// ended at time `now`: its weight leaves its customer's and group's
    /// usage, and the time it was in use since the last update is charged
    /// at the next update.
    pub fn remove_match(&mut self, resource: &str, now: i64) -> Result<(), AccountantError> {
        let Some(r) = self.resource(resource) else {
            return Ok(());
        };
        let (user, cp_matches, start_time, weight) =
            (r.remote_user.clone(), r.num_cp_matches, r.start_time, r.slot_weight);
        // (The key is only written to a log.)
        let key = if self.log.is_some() { format!("{RESOURCE_PREFIX}{resource}") } else { String::new() };
        let Some(customer) = user.filter(|_| cp_matches.is_none()) else {
            // A consumption-policy placeholder, or a record without a user.
            self.destroy_resource(resource, &key)?;
            return self.commit(false);
        };
        let start = start_time.unwrap_or(0).max(self.last_update);
        let weight = weight.unwrap_or(1.0);
        let in_use = now - start;
        // What a record holds before the match leaves it (a missing record
        // holds nothing).
        let usage = |this: &Self, name: &str| {
            this.customer(name).map_or((0, 0.0, 0, 0.0), |c| {
                (
                    c.resources_used.unwrap_or(0),
                    c.weighted_resources_used.unwrap_or(0.0),
                    c.uncharged_time.unwrap_or(0),
                    c.weighted_uncharged_time.unwrap_or(0.0),
                )
            })
        };
        let (used, weighted, uncharged, weighted_uncharged) = usage(self, &customer);
        let group = self.group_of(&customer).to_string();
        let (group_used, group_weighted, group_uncharged, group_weighted_uncharged) = usage(self, &group);
        let i = self.ensure_customer(&customer)?;
        self.set_int_at(i, CustomerAttr::ResourcesUsed, if used > 0 { used - 1 } else { used })?;
        self.set_real_at(i, CustomerAttr::WeightedResourcesUsed, (weighted - weight).max(0.0))?;
        self.set_int_at(i, CustomerAttr::UnchargedTime, uncharged + in_use)?;
        self.set_real_at(i, CustomerAttr::WeightedUnchargedTime, weighted_uncharged + in_use as f64 * weight)?;
        for part in group_path(&group) {
            let hier = self.customer(part).and_then(|c| c.hier_weighted_resources_used).unwrap_or(0.0);
            self.set_customer_real(part, CustomerAttr::HierWeightedResourcesUsed, (hier - weight).max(0.0))?;
        }
        let g = self.ensure_customer(&group)?;
        self.set_real_at(g, CustomerAttr::WeightedResourcesUsed, (group_weighted - weight).max(0.0))?;
        self.set_int_at(g, CustomerAttr::ResourcesUsed, (group_used - 1).max(0))?;
        self.set_int_at(g, CustomerAttr::UnchargedTime, group_uncharged + in_use)?;
        self.set_real_at(g, CustomerAttr::WeightedUnchargedTime, group_weighted_uncharged + in_use as f64 * weight)?;
        self.destroy_resource(resource, &key)?;
        self.commit(false)
    }

    // ----- admin operations (condor_userprio) ----------------------------------

    /// `condor_userprio -setprio NAME VALUE`: sets the real priority.
    pub fn set_priority(&mut self, name: &str, priority: f64) -> Result<(), AccountantError> {
        check_submitter(name, "update the priority of")?;
        self.set_customer_real(name, CustomerAttr::Priority, priority)?;
        self.commit(true)
    }

    /// `condor_userprio -setfactor NAME VALUE`: sets the priority factor (≥ 1).
    pub fn set_priority_factor(&mut self, name: &str, factor: f64) -> Result<(), AccountantError> {
        check_submitter(name, "update the priority of")?;
        if factor.is_nan() || factor < MIN_PRIORITY_FACTOR {
            return Err(AccountantError::Invalid("Priority factors must be greater than or equal to 1.".into()));
        }
        self.set_customer_real(name, CustomerAttr::PriorityFactor, factor)?;
        self.commit(true)
    }

    /// `condor_userprio -setceiling NAME VALUE`: most weighted resources the
    /// submitter may use (-1: no ceiling).
    pub fn set_ceiling(&mut self, name: &str, ceiling: i64) -> Result<(), AccountantError> {
        check_submitter(name, "update the ceiling of")?;
        if ceiling < -1 {
            return Err(AccountantError::Invalid("ceiling must be greater than or equal to -1.".into()));
        }
        self.set_customer_int(name, CustomerAttr::Ceiling, ceiling)?;
        self.commit(true)
    }

    /// `condor_userprio -setfloor NAME VALUE`: weighted resources the
    /// submitter is served first (0: no floor).
    pub fn set_floor(&mut self, name: &str, floor: i64) -> Result<(), AccountantError> {
        check_submitter(name, "update the floor of")?;
        if floor < 0 {
            return Err(AccountantError::Invalid("floor must be greater than or equal to 0.".into()));
        }
        self.set_customer_int(name, CustomerAttr::Floor, floor)?;
        self.commit(true)
    }

    /// `condor_userprio -setaccum NAME VALUE`: sets the weighted accumulated
    /// usage (seconds).
    pub fn set_accumulated_usage(&mut self, name: &str, usage: f64) -> Result<(), AccountantError> {
        check_submitter(name, "update the Accumulated usage of")?;
        if usage.is_nan() || usage < 0.0 {
            return Err(AccountantError::Invalid("Usage must be greater than 0 seconds".into()));
        }
        self.set_customer_real(name, CustomerAttr::WeightedAccumulatedUsage, usage)?;
        self.commit(true)
    }

    /// `condor_userprio -setbegin NAME EPOCH`: sets when usage began.
    pub fn set_begin_time(&mut self, name: &str, time: i64) -> Result<(), AccountantError> {
        check_submitter(name, "update the begin usage time of")?;
        if time < 0 {
            return Err(AccountantError::Invalid("Time must be greater than 0 seconds".into()));
        }
        self.set_customer_int(name, CustomerAttr::BeginUsageTime, time)?;
        self.commit(true)
    }

    /// `condor_userprio -setlast NAME EPOCH`: sets when usage was last seen.
    pub fn set_last_time(&mut self, name: &str, time: i64) -> Result<(), AccountantError> {
        check_submitter(name, "update the last usage time of")?;
        if time < 0 {
            return Err(AccountantError::Invalid("Time must be greater than 0 seconds".into()));
        }
        self.set_customer_int(name, CustomerAttr::LastUsageTime, time)?;
        self.commit(true)
    }

    /// `condor_userprio -resetusage NAME`: accumulated usage back to zero,
    /// usage beginning at `now`.
    pub fn reset_usage(&mut self, name: &str, now: i64) -> Result<(), AccountantError> {
        check_submitter(name, "update the priority of")?;
        self.reset_one(name, now)?;
        self.commit(true)
    }

    /// `condor_userprio -resetall`: every record's accumulated usage back to
    /// zero, usage beginning at `now`.
    pub fn reset_all_usage(&mut self, now: i64) -> Result<(), AccountantError> {
        let names: Vec<String> = self.customers.iter().map(|c| c.name.clone()).collect();
        for name in names {
            self.reset_one(&name, now)?;
            self.commit(true)?;
        }
        Ok(())
    }

    fn reset_one(&mut self, name: &str, now: i64) -> Result<(), AccountantError> {
        self.set_customer_real(name, CustomerAttr::AccumulatedUsage, 0.0)?;
        self.set_customer_real(name, CustomerAttr::WeightedAccumulatedUsage, 0.0)?;
        self.set_customer_int(name, CustomerAttr::BeginUsageTime, now)
    }

    /// `condor_userprio -delete NAME`: removes a record. Returns whether
    /// there was one.
    pub fn delete_record(&mut self, name: &str) -> Result<bool, AccountantError> {
        check_submitter(name, "delete")?;
        let Some(index) = self.customer_at(name) else {
            return Ok(false);
        };
        if self.log.is_some() {
            self.pending.destroy(&format!("{CUSTOMER_PREFIX}{name}"))?;
        }
        self.remove_customer_at(index);
        self.commit(true)?;
        Ok(true)
    }

    // ----- persistence ---------------------------------------------------------

    /// Writes the pending transaction to the log (if there is one).
    fn commit(&mut self, durable: bool) -> Result<(), AccountantError> {
        if let Some(log) = &mut self.log {
            log.commit(&self.pending, durable)?;
        }
        self.pending.clear();
        Ok(())
    }

    /// Compacts the log when it has grown past the size limit; the limit then
    /// becomes at least twice the compacted size.
    fn maybe_compact(&mut self) {
        let Some(size) = self.log.as_ref().map(|l| l.size()) else {
            return;
        };
        if size <= self.max_log_size {
            return;
        }
        if let Err(e) = self.compact() {
            self.warnings.push(format!("compacting the accountant's log failed: {e}"));
            return;
        }
        let size = self.log.as_ref().map_or(0, |l| l.size());
        if size * 2 > self.max_log_size {
            self.max_log_size = size * 2;
        }
    }

    /// Rewrites the log as one generation holding the current records only.
    pub fn compact(&mut self) -> Result<(), AccountantError> {
        let state = self.snapshot()?;
        if let Some(log) = &mut self.log {
            log.compact(&state)?;
        }
        Ok(())
    }

    /// Every record as log records (what a compacted log holds).
    pub fn snapshot(&self) -> Result<Records, LogError> {
        let mut out = Records::default();
        if self.has_accountant_record {
            out.new_ad(ACCOUNTANT_KEY, "*")?;
            if self.last_update != 0 {
                out.set(ACCOUNTANT_KEY, "LastUpdateTime", &self.last_update.to_string())?;
            }
            for (n, v) in &self.accountant_other {
                out.set(ACCOUNTANT_KEY, n, v)?;
            }
        }
        for c in &self.customers {
            let key = format!("{CUSTOMER_PREFIX}{}", c.name);
            out.new_ad(&key, "*")?;
            for (n, v) in c.attributes() {
                out.set(&key, n, &v)?;
            }
        }
        for r in &self.resources {
            let key = format!("{RESOURCE_PREFIX}{}", r.name);
            out.new_ad(&key, "*")?;
            for (n, v) in r.attributes() {
                out.set(&key, n, &v)?;
            }
        }
        for (key, my_type, attrs) in &self.others {
            out.new_ad(key, my_type)?;
            for (n, v) in attrs {
                out.set(key, n, v)?;
            }
        }
        Ok(out)
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

/// Replaying a log into the accountant.
impl LogTable for Accountant {
    fn new_ad(&mut self, key: &str, my_type: &str) {
        if let Some(name) = key.strip_prefix(CUSTOMER_PREFIX) {
            match self.customer_at(name) {
                Some(i) => self.customers[i] = CustomerRecord::new(name),
                None => {
                    self.insert_customer(CustomerRecord::new(name));
                }
            }
        } else if let Some(name) = key.strip_prefix(RESOURCE_PREFIX) {
            match self.resource_at(name) {
                Some(i) => self.resources[i] = ResourceRecord::new(name),
                None => {
                    self.insert_resource(ResourceRecord::new(name));
                }
            }
        } else if key == ACCOUNTANT_KEY {
            self.has_accountant_record = true;
            self.last_update = 0;
            self.accountant_other.clear();
        } else {
            self.others.retain(|(k, _, _)| k != key);
            self.others.push((key.to_string(), my_type.to_string(), Vec::new()));
        }
    }

    fn destroy_ad(&mut self, key: &str) {
        if let Some(name) = key.strip_prefix(CUSTOMER_PREFIX) {
            if let Some(i) = self.customer_at(name) {
                self.remove_customer_at(i);
            }
        } else if let Some(name) = key.strip_prefix(RESOURCE_PREFIX) {
            self.forget_resource(name);
        } else if key == ACCOUNTANT_KEY {
            self.has_accountant_record = false;
            self.last_update = 0;
            self.accountant_other.clear();
        } else {
            self.others.retain(|(k, _, _)| k != key);
        }
    }

    fn set_attribute(&mut self, key: &str, name: &str, value: &str) {
        if let Some(customer) = key.strip_prefix(CUSTOMER_PREFIX) {
            // A log sets a record's attributes one after another: try the
            // record set last before hashing the name.
            let i = match self.last_set.filter(|&i| self.customers.get(i).is_some_and(|c| c.name == customer)) {
                Some(i) => Some(i),
                None => self.customer_at(customer),
            };
            if let Some(i) = i {
                self.last_set = Some(i);
                self.customers[i].set_text(name, value);
            }
        } else if let Some(resource) = key.strip_prefix(RESOURCE_PREFIX) {
            if let Some(i) = self.resource_at(resource) {
                self.resources[i].set_text(name, value);
            }
        } else if key == ACCOUNTANT_KEY {
            if !self.has_accountant_record {
                return;
            }
            if name.eq_ignore_ascii_case("LastUpdateTime") {
                self.last_update = record::parse_number(value).map_or(0, |n| n.as_i64());
            } else {
                self.accountant_other.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                self.accountant_other.push((name.to_string(), value.to_string()));
            }
        } else if let Some((_, _, attrs)) = self.others.iter_mut().find(|(k, _, _)| k == key) {
            attrs.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            attrs.push((name.to_string(), value.to_string()));
        }
    }

    fn delete_attribute(&mut self, key: &str, name: &str) {
        if let Some(customer) = key.strip_prefix(CUSTOMER_PREFIX) {
            if let Some(i) = self.customer_at(customer) {
                self.customers[i].delete(name);
            }
        } else if let Some(resource) = key.strip_prefix(RESOURCE_PREFIX) {
            if let Some(i) = self.resource_at(resource) {
                self.resources[i].delete(name);
            }
        } else if key == ACCOUNTANT_KEY {
            if name.eq_ignore_ascii_case("LastUpdateTime") {
                self.last_update = 0;
            } else {
                self.accountant_other.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            }
        } else if let Some((_, _, attrs)) = self.others.iter_mut().find(|(k, _, _)| k == key) {
            attrs.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
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

/// How an accountant weighs slots (see [`Accountant::slot_weight`]).
pub(crate) struct SlotWeigher {
    /// NEGOTIATOR_USE_SLOT_WEIGHTS.
    on: bool,
    /// SLOT_WEIGHT, for a slot without `SlotWeight`.
    default: Option<classad::Expr>,
}

impl SlotWeigher {
    /// The weight of `slot`.
    pub(crate) fn weight(&self, slot: &classad::ClassAd) -> f64 {
        weigh(self.on, self.default.as_ref(), slot)
    }
}

/// The weight of `slot` (see [`Accountant::slot_weight`]): with slot
/// weights `on`, its `SlotWeight`, else `default`.
fn weigh(on: bool, default: Option<&classad::Expr>, slot: &classad::ClassAd) -> f64 {
    if !on {
        return 1.0;
    }
    let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
    let ctx = classad::EvalContext::new(&opts).my(slot);
    let value = if slot.lookup(slot_names().slot_weight).is_some() {
        ctx.eval_attr(slot_names().slot_weight)
    } else {
        match default {
            Some(expr) => ctx.eval(expr),
            None => classad::Value::Undefined,
        }
    };
    match value {
        classad::Value::Int(i) if i >= 0 => i as f64,
        classad::Value::Real(r) if r >= 0.0 => r,
        _ => 1.0,
    }
}

/// `Name@StartdIpAddr` of a slot ad: the key of its resource record.
pub fn resource_name(slot: &classad::ClassAd) -> String {
    // Written as strings, as startds write them (or missing, read as
    // empty): no evaluation.
    let text = |n: classad::Name| -> std::borrow::Cow<'_, str> {
        match slot.lookup(n).map(classad::Expr::as_literal) {
            None => "".into(),
            Some(Some(classad::Literal::Str(s))) => s.as_str().into(),
            Some(_) => attr_string(slot, n).unwrap_or_default().into(),
        }
    };
    let (name, addr) = (text(slot_names().name), text(slot_names().startd_ip_addr));
    let mut out = String::with_capacity(name.len() + 1 + addr.len());
    out.push_str(&name);
    out.push('@');
    out.push_str(&addr);
    out
}

/// The slot attributes the accountant reads, interned once.
struct SlotNames {
    name: classad::Name,
    startd_ip_addr: classad::Name,
    state: classad::Name,
    activity: classad::Name,
    accounting_group: classad::Name,
    remote_user: classad::Name,
    slot_weight: classad::Name,
    cp_match_cost: classad::Name,
    matched_concurrency_limits: classad::Name,
}

fn slot_names() -> &'static SlotNames {
    static NAMES: std::sync::OnceLock<SlotNames> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| SlotNames {
        name: classad::Name::new("Name"),
        startd_ip_addr: classad::Name::new("StartdIpAddr"),
        state: classad::Name::new("State"),
        activity: classad::Name::new("Activity"),
        accounting_group: classad::Name::new("AccountingGroup"),
        remote_user: classad::Name::new("RemoteUser"),
        slot_weight: classad::Name::new("SlotWeight"),
        cp_match_cost: classad::Name::new(CP_MATCH_COST),
        matched_concurrency_limits: classad::Name::new("MatchedConcurrencyLimits"),
    })
}

fn attr_string(ad: &classad::ClassAd, name: classad::Name) -> Option<String> {
    // Slot names and addresses are written as strings: no evaluation.
    match ad.lookup(name).map(|e| e.as_literal()) {
        None => return None,
        Some(Some(classad::Literal::Str(s))) => return Some(s.as_str().to_string()),
        Some(_) => {}
    }
    let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
    match classad::EvalContext::new(&opts).my(ad).eval_attr(name) {
        classad::Value::Str(s) => Some(s.as_str().to_string()),
        _ => None,
    }
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

/// The check `condor_userprio` makes before an edit: the name must be a
/// full submitter name (`user@domain`). The message is `condor_userprio`'s.
fn check_submitter(name: &str, what: &str) -> Result<(), AccountantError> {
    if !name.contains('@') {
        let message = match what {
            "delete" => "You must specify the full name of the record you wish\n\tto delete (user@uid.domain or user@full.host.name)".to_string(),
            "update the floor of" | "update the ceiling of" => format!(
                "You must specify the full name of the submittor you wish\n\tto {what} (user@uid.domain or user@full.host.name) (not {name})"
            ),
            _ => format!(
                "You must specify the full name of the submittor you wish\n\tto {what} (user@uid.domain or user@full.host.name)"
            ),
        };
        return Err(AccountantError::Invalid(message));
    }
    if name.contains(char::is_whitespace) {
        return Err(AccountantError::Invalid(format!("`{name}` holds blanks")));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
