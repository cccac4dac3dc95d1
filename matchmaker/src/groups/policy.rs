//! The group configuration a negotiator reads: GROUP_NAMES, each group's
//! policy (`GROUP_QUOTA_<g>`, `GROUP_QUOTA_DYNAMIC_<g>`,
//! `GROUP_ACCEPT_SURPLUS_<g>`, `GROUP_AUTOREGROUP_<g>`) and the knobs of the
//! quota algorithm ([`super::quota`]).

use classad::Expr;

use super::tree::{GroupId, GroupTree};
use crate::config::{Config, ConfigError};

/// A group's configured policy.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GroupPolicy {
    /// Whether its quota is static (`GROUP_QUOTA_<g>`, slot weight) rather
    /// than dynamic (`GROUP_QUOTA_DYNAMIC_<g>`, a fraction of the parent's).
    pub static_quota: bool,
    /// The configured quota (0 when none is configured).
    pub config_quota: f64,
    /// `GROUP_ACCEPT_SURPLUS_<g>` (else GROUP_ACCEPT_SURPLUS); always true for
    /// `<none>`.
    pub accept_surplus: bool,
    /// `GROUP_AUTOREGROUP_<g>` (else GROUP_AUTOREGROUP); for `<none>`, whether
    /// any group has it.
    pub autoregroup: bool,
}

/// The group configuration of a negotiator: the tree, each group's
/// policy, and the knobs of the quota algorithm.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GroupQuotaConfig {
    /// The groups (GROUP_NAMES).
    pub tree: GroupTree,
    /// Each group's policy, indexed by [`GroupId`].
    pub policies: Vec<GroupPolicy>,
    /// NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION (true).
    pub allow_oversubscription: bool,
    /// GROUP_QUOTA_MAX_ALLOCATION_ROUNDS (3; at least 1).
    pub max_allocation_rounds: u32,
    /// GROUP_QUOTA_ROUND_ROBIN_RATE (1e100; at least 1).
    pub round_robin_rate: f64,
    /// GROUP_SORT_EXPR, evaluated against an ad of `AccountingGroup`,
    /// `GroupQuota`, `GroupResourcesAllocated` and `GroupResourcesInUse`.
    pub sort_expr: Expr,
    /// NEGOTIATOR_STRICT_ENFORCE_QUOTA (true): groups that do not accept
    /// surplus cap their subtree's usage.
    pub strict_enforce: bool,
    /// NEGOTIATOR_USE_SLOT_WEIGHTS (true): without it quotas count slots and
    /// allocations are whole slots.
    pub weighted_slots: bool,
    /// NEGOTIATOR_USE_WEIGHTED_DEMAND (true): a submitter's demand is its
    /// weighted jobs rather than its job count.
    pub weighted_demand: bool,
    /// NEGOTIATOR_CONSIDER_PREEMPTION (true): without it a group already at
    /// its allocation is not negotiated.
    pub consider_preemption: bool,
    /// Whether any group accepts surplus.
    pub any_accept_surplus: bool,
    /// Warnings about the configuration (ignored names, bad quotas).
    pub warnings: Vec<String>,
}

impl GroupQuotaConfig {
    /// Reads GROUP_NAMES and the group knobs. Names are split on commas and
    /// blanks; a name whose parent is not configured, a duplicate, or
    /// `<none>` is ignored with a warning, as is a quota out of range
    /// (static below 0, dynamic outside 0..=1). A group with neither quota
    /// has quota 0.
    pub fn from_config(config: &Config) -> Result<GroupQuotaConfig, ConfigError> {
        let text = |name: &str| config.lookup(name).map(|l| l.value.trim().to_string()).filter(|v| !v.is_empty());
        let names: Vec<String> = text("GROUP_NAMES")
            .map(|v| v.split([',', ' ', '\t']).filter(|n| !n.is_empty()).map(str::to_string).collect())
            .unwrap_or_default();
        let tree = GroupTree::new(&names);
        let mut warnings: Vec<String> =
            tree.ignored().iter().map(|(name, why)| format!("group `{name}` ignored: {why}")).collect();
        let flag = |name: &str, default: bool| match config.get_bool(name) {
            Ok(v) => Ok(v),
            Err(ConfigError::Undefined { .. }) => Ok(default),
            Err(e) => Err(e),
        };
        let real = |name: &str| -> Result<Option<f64>, ConfigError> {
            match text(name) {
                None => Ok(None),
                Some(_) => config.get_real(name).map(Some),
            }
        };
        let default_accept = flag("GROUP_ACCEPT_SURPLUS", false)?;
        let default_autoregroup = flag("GROUP_AUTOREGROUP", false)?;
        let mut policies = vec![GroupPolicy {
            static_quota: false,
            config_quota: 0.0,
            accept_surplus: true,
            autoregroup: default_autoregroup,
        }];
        let mut any_accept_surplus = default_accept;
        let mut any_autoregroup = default_autoregroup;
        for g in tree.ids().skip(1) {
            let name = tree.name(g);
            let mut policy = GroupPolicy {
                static_quota: false,
                config_quota: 0.0,
                accept_surplus: default_accept,
                autoregroup: false,
            };
            match real(&format!("GROUP_QUOTA_{name}"))? {
                Some(q) if (0.0..=f64::from(i32::MAX)).contains(&q) => {
                    policy.static_quota = true;
                    policy.config_quota = q;
                }
                other => {
                    if let Some(q) = other {
                        warnings.push(format!("GROUP_QUOTA_{name} = {q} is out of range (0 to 2147483647): ignored"));
                    }
                    match real(&format!("GROUP_QUOTA_DYNAMIC_{name}"))? {
                        Some(q) if (0.0..=1.0).contains(&q) => policy.config_quota = q,
                        Some(q) => warnings.push(format!(
                            "GROUP_QUOTA_DYNAMIC_{name} = {q} is out of range (0 to 1): group `{name}` has quota 0"
                        )),
                        None => warnings.push(format!("no quota for group `{name}`: it has quota 0")),
                    }
                }
            }
            policy.accept_surplus = flag(&format!("GROUP_ACCEPT_SURPLUS_{name}"), default_accept)?;
            policy.autoregroup = flag(&format!("GROUP_AUTOREGROUP_{name}"), default_autoregroup)?;
            any_accept_surplus |= policy.accept_surplus;
            any_autoregroup |= policy.autoregroup;
            policies.push(policy);
        }
        policies[0].autoregroup = any_autoregroup;
        let rounds = match config.get_int("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS") {
            Ok(n) => n,
            Err(ConfigError::Undefined { .. }) => 3,
            Err(e) => return Err(e),
        };
        let rate = real("GROUP_QUOTA_ROUND_ROBIN_RATE")?.unwrap_or(f64::MAX);
        let sort_expr = match config.get_expr_opt("GROUP_SORT_EXPR")? {
            Some(e) => e,
            None => DEFAULT_SORT_EXPR.parse().map_err(|e| ConfigError::BadValue {
                name: "GROUP_SORT_EXPR".into(),
                value: DEFAULT_SORT_EXPR.into(),
                set_at: "default".into(),
                message: format!("{e}"),
            })?,
        };
        Ok(GroupQuotaConfig {
            tree,
            policies,
            allow_oversubscription: flag("NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION", true)?,
            max_allocation_rounds: rounds.clamp(1, i64::from(i32::MAX)) as u32,
            round_robin_rate: if rate.is_nan() { f64::MAX } else { rate.max(1.0) },
            sort_expr,
            strict_enforce: flag("NEGOTIATOR_STRICT_ENFORCE_QUOTA", true)?,
            weighted_slots: flag("NEGOTIATOR_USE_SLOT_WEIGHTS", true)?,
            weighted_demand: flag("NEGOTIATOR_USE_WEIGHTED_DEMAND", true)?,
            consider_preemption: flag("NEGOTIATOR_CONSIDER_PREEMPTION", true)?,
            any_accept_surplus,
            warnings,
        })
    }

    /// No groups: the pool negotiates as one.
    pub fn none() -> GroupQuotaConfig {
        GroupQuotaConfig {
            tree: GroupTree::default(),
            policies: vec![GroupPolicy {
                static_quota: false,
                config_quota: 0.0,
                accept_surplus: true,
                autoregroup: false,
            }],
            allow_oversubscription: true,
            max_allocation_rounds: 3,
            round_robin_rate: f64::MAX,
            sort_expr: Expr::from(0i64),
            strict_enforce: true,
            weighted_slots: true,
            weighted_demand: true,
            consider_preemption: true,
            any_accept_surplus: false,
            warnings: Vec::new(),
        }
    }

    /// Whether any group is configured (otherwise the pool negotiates as one).
    pub fn enabled(&self) -> bool {
        !self.tree.is_empty()
    }

    /// Whether `<none>` negotiates last for the whole pool with the
    /// submitters of autoregroup groups (GROUP_AUTOREGROUP for some group).
    pub fn autoregroup(&self) -> bool {
        self.policies[0].autoregroup
    }

    /// A group's policy.
    pub fn policy(&self, g: GroupId) -> &GroupPolicy {
        &self.policies[g.0]
    }
}

/// HTCondor's default GROUP_SORT_EXPR.
pub const DEFAULT_SORT_EXPR: &str =
    r#"ifThenElse(AccountingGroup=?="<none>",3.4e+38,ifThenElse(GroupQuota>0,GroupResourcesInUse/GroupQuota,3.3e+38))"#;
