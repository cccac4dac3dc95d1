//! The accountant's settings (HTCondor's knobs and defaults).

use rustc_hash::FxHashMap;

use crate::groups::GroupTree;

/// The accountant's settings, with HTCondor's defaults.
#[derive(Debug, Clone)]
#[non_exhaustive]
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
    /// How long a writer of the log waits for another writer's lock before
    /// giving up (10 s; ACCOUNTANT_LOCK_TIMEOUT, seconds, a knob of ours
    /// that HTCondor does not have): see
    /// [`crate::classad_log`'s concurrent writers](crate::classad_log#concurrent-writers).
    pub lock_timeout: std::time::Duration,
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
            lock_timeout: crate::classad_log::DEFAULT_LOCK_TIMEOUT,
        }
    }
}

impl AccountantConfig {
    /// The accountant's knobs from an HTCondor configuration (HTCondor's
    /// defaults for those it does not set): PRIORITY_HALFLIFE,
    /// DEFAULT_PRIO_FACTOR, NICE_USER_PRIO_FACTOR, REMOTE_PRIO_FACTOR,
    /// ACCOUNTANT_LOCAL_DOMAIN, GROUP_NAMES and each group's
    /// `GROUP_PRIO_FACTOR_<group>`, NEGOTIATOR_USE_SLOT_WEIGHTS, SLOT_WEIGHT,
    /// NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES, MAX_ACCOUNTANT_DATABASE_SIZE,
    /// and ACCOUNTANT_LOCK_TIMEOUT (ours: see [`AccountantConfig::lock_timeout`]).
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
            lock_timeout: match config.lookup("ACCOUNTANT_LOCK_TIMEOUT").filter(|l| !l.value.trim().is_empty()) {
                Some(_) => {
                    std::time::Duration::from_secs_f64(config.get_real("ACCOUNTANT_LOCK_TIMEOUT")?.clamp(0.0, 1e9))
                }
                None => crate::classad_log::DEFAULT_LOCK_TIMEOUT,
            },
        })
    }
}
