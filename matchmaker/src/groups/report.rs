//! What a cycle with group quotas reports about each group: its quota,
//! demand, allocation, usage and matches, round by round, and in a
//! sentence why it got what it got. The negotiator writes these reports
//! and the accountant reads them (for `condor_userprio`'s quota columns).
//! With the `serde` feature they are `Serialize`, field by field.

/// One group's figures in one allocation round.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct GroupRoundFigures {
    /// 1 for the first round.
    pub round: u32,
    /// Its quota in the round (with autoregroup, `<none>`'s is the whole
    /// pool).
    pub quota: f64,
    /// Its demand at the round's start (allocated plus unallocated).
    pub requested: f64,
    /// What fair share allocated it (its quota plus any surplus).
    pub allocated: f64,
    /// Demand left unallocated.
    pub unallocated: f64,
    /// GROUP_SORT_EXPR's value (groups negotiate in ascending order).
    pub sort_key: f64,
    /// The limits it negotiated with (empty: it was skipped).
    pub limits: Vec<f64>,
    /// Why it was skipped, if it was.
    pub skipped: Option<String>,
    /// The group that does not accept surplus and held its limit below
    /// its allocation, if one did (strict enforcement).
    pub capped_by: Option<String>,
    /// Matches it made.
    pub matches: usize,
    /// Its own weighted usage when the round ended.
    pub usage_after: f64,
}

/// One group's figures for the cycle.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct GroupReport {
    /// The group's name (`<none>` for the root).
    pub name: String,
    /// Its parent (`None` for `<none>`).
    pub parent: Option<String>,
    /// `GROUP_QUOTA_<g>` (static) or `GROUP_QUOTA_DYNAMIC_<g>` (a fraction).
    pub config_quota: f64,
    /// Whether the configured quota is static.
    pub static_quota: bool,
    /// Whether it accepts surplus.
    pub accept_surplus: bool,
    /// Whether its submitters negotiate again in `<none>` (for `<none>`:
    /// whether any group does).
    pub autoregroup: bool,
    /// The quota it was assigned this cycle (before autoregroup gives
    /// `<none>` the whole pool).
    pub quota: f64,
    /// The quota its subtree received.
    pub subtree_quota: f64,
    /// Its submitters' demand (weighted running and idle jobs).
    pub demand: f64,
    /// Its submitters.
    pub submitters: usize,
    /// Its allocation in the last round.
    pub allocated: f64,
    /// Allocation beyond its quota (surplus it received; negative: quota
    /// it left unused).
    pub surplus: f64,
    /// Its own weighted usage when the cycle began.
    pub usage_before: f64,
    /// Its own weighted usage when the cycle ended.
    pub usage_after: f64,
    /// Matches made while it negotiated (with autoregroup, matches made in
    /// `<none>` count for `<none>`).
    pub matches: usize,
    /// Round by round.
    pub rounds: Vec<GroupRoundFigures>,
    /// Why it got what it got, in a sentence or two.
    pub explanation: String,
}

/// One allocation round's totals, as the negotiator logs them
/// (`Round N totals: allocated= ... usage= ...`).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct GroupRoundTotals {
    /// 1 for the first.
    pub round: u32,
    /// Σ allocations.
    pub allocated: f64,
    /// Σ min(usage, allocation) when the round ended.
    pub usage: f64,
    /// Surplus no group could take.
    pub surplus: f64,
    /// The largest allocation still to be used as the round began.
    pub max_delta: f64,
    /// The groups in the order they negotiated.
    pub order: Vec<String>,
}

fn num(x: f64) -> String {
    let r = (x * 1000.0).round() / 1000.0;
    format!("{r}")
}

/// Why a group got what it got: its quota, its demand, then round by
/// round its allocation, the limit it negotiated with (and who held it
/// down) and its matches.
pub(crate) fn explain(r: &GroupReport, pool: f64) -> String {
    let mut out = if r.parent.is_none() {
        let mut s = format!("quota {}: the pool's {} less its groups' quotas", num(r.quota), num(pool));
        if r.autoregroup {
            s.push_str(&format!("; negotiates last for the whole pool ({}), autoregroup submitters too", num(pool)));
        }
        s
    } else if r.static_quota {
        let scaled = if (r.quota - r.config_quota).abs() > 1e-9 {
            format!(", scaled to {}", num(r.quota))
        } else {
            String::new()
        };
        format!("static quota {}{scaled}", num(r.config_quota))
    } else {
        format!("dynamic quota {} of {}: {}", num(r.config_quota), r.parent.as_deref().unwrap_or("?"), num(r.quota))
    };
    out.push_str(&format!("; demand {}", num(r.demand)));
    for f in &r.rounds {
        let allocated = if f.allocated > f.quota + 1e-9 {
            format!("allocated {} (quota + {} surplus)", num(f.allocated), num(f.allocated - f.quota))
        } else if f.allocated + 1e-9 < f.quota && f.unallocated <= 1e-9 {
            format!("allocated {} (all it asked for)", num(f.allocated))
        } else {
            format!("allocated {}", num(f.allocated))
        };
        let negotiated = match (f.limits.last(), &f.skipped, &f.capped_by) {
            (None, Some(why), _) => format!("skipped ({why})"),
            (None, None, _) => "skipped".to_string(),
            (Some(&l), _, Some(by)) => {
                format!("held to {} by {by} (no surplus accepted), {} matches", num(l), f.matches)
            }
            (Some(&l), _, None) => format!("limit {}, {} matches", num(l), f.matches),
        };
        let demand = if f.round > 1 && f.requested + 1e-9 < r.demand {
            format!("demand taken as {} (what it had), ", num(f.requested))
        } else {
            String::new()
        };
        out.push_str(&format!(". Round {}: {demand}{allocated}, {negotiated}", f.round));
    }
    out.push_str(&format!(". Usage {} -> {}", num(r.usage_before), num(r.usage_after)));
    out
}
