//! A startd's policy: its expressions (`START`, `SUSPEND`, `PREEMPT`, ...)
//! parsed once from the configuration, and its timer knobs.

use std::sync::OnceLock;

use classad::{ClassAd, Expr};
use regex::Regex;

use crate::config::{Config, ConfigError};

/// An error building a [`Policy`].
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// A knob the startd requires is not set (or is empty).
    #[error("{name} is not defined: the startd needs it")]
    Missing {
        /// The knob.
        name: String,
    },
    /// A knob's value is not a ClassAd expression.
    #[error("{name} = {value} ({set_at}): not a ClassAd expression: {message}")]
    BadExpr {
        /// The knob.
        name: String,
        /// Its expanded value.
        value: String,
        /// Where it was set.
        set_at: String,
        /// What the parser said.
        message: String,
    },
    /// Reading a value failed (a macro cycle, a value of the wrong type).
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// The expressions the startd requires, as it reads them into every
/// slot's ad.
const REQUIRED: [&str; 8] =
    ["START", "SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND", "WANT_VACATE", "MachineMaxVacateTime"];

/// The expressions it reads when they are set.
const OPTIONAL: [&str; 18] = [
    "WANT_HOLD_REASON",
    "WANT_HOLD_SUBCODE",
    "CLAIM_WORKLIFE",
    "MaxJobRetirementTime",
    "PERIODIC_CHECKPOINT",
    "RunBenchmarks",
    "Rank",
    "SUSPEND_VANILLA",
    "CONTINUE_VANILLA",
    "PREEMPT_VANILLA",
    "KILL_VANILLA",
    "WANT_SUSPEND_VANILLA",
    "WANT_VACATE_VANILLA",
    "SUSPEND_VM",
    "CONTINUE_VM",
    "PREEMPT_VM",
    "KILL_VM",
    "WANT_VACATE_VM",
];

/// A startd's policy, read from a configuration as the startd reads it.
///
/// The expressions are parsed once and held in an ad (the startd's
/// "config ad"): `START`, `SUSPEND`, `CONTINUE`, `PREEMPT`, `KILL`,
/// `WANT_SUSPEND`, `WANT_VACATE`, `WANT_HOLD`, `MachineMaxVacateTime`,
/// `IsOwner` (from `IsOwner`, else `IS_OWNER`, else `START =?= False`),
/// `CpuBusy`, and, when set, `CLAIM_WORKLIFE`, `MaxJobRetirementTime`,
/// `PERIODIC_CHECKPOINT`, `RunBenchmarks`, `Rank`, the `_VANILLA` and
/// `_VM` variants, `START_BACKFILL`, `EVICT_BACKFILL`, and the names listed
/// in `STARTD_ATTRS` and `STARTD_EXPRS`. Policy expressions refer to each
/// other by these names (`PREEMPT` uses `SUSPEND` and `WANT_SUSPEND` in
/// the desktop policy).
///
/// ```
/// use matchmaker::config::Config;
/// use matchmaker::startd::Policy;
///
/// let config = Config::parse_str("use POLICY : UWCS_DESKTOP\n", "desktop.conf")?;
/// let policy = Policy::from_config(&config)?;
/// assert!(policy.expr("START").expect("set").to_string().contains("KeyboardIdle"));
/// assert_eq!(policy.expr("IsOwner").expect("set").to_string(), "(START is false)");
/// assert_eq!(policy.match_timeout, 120);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Policy {
    ad: ClassAd,
    /// Seconds a Matched slot waits to be claimed (`MATCH_TIMEOUT`).
    pub match_timeout: i64,
    /// Seconds after a hard kill before the startd kills the starter
    /// (`KILLING_TIMEOUT`).
    pub killing_timeout: i64,
    /// Seconds between evaluations while a slot is Claimed or in Backfill
    /// (`POLLING_INTERVAL`).
    pub polling_interval: i64,
    /// Seconds between evaluations otherwise (`UPDATE_INTERVAL`).
    pub update_interval: i64,
    /// Whether backfill is on (`ENABLE_BACKFILL`): only then are
    /// `START_BACKFILL` and the Backfill state used.
    pub backfill: bool,
    /// The names of `STARTD_LATCH_EXPRS`: each is evaluated at every step
    /// and published as `<name>Value` and `<name>Time` (when its value
    /// last changed).
    pub latches: Vec<String>,
    /// The schedd's keep-alive interval (`ALIVE_INTERVAL`); with
    /// `MAX_CLAIM_ALIVES_MISSED` it gives the claim lease of jobs without
    /// `JobLeaseDuration`.
    pub alive_interval: i64,
    /// Keep-alives a claim may miss (`MAX_CLAIM_ALIVES_MISSED`).
    pub max_claim_alives_missed: i64,
    /// Seconds east of UTC for `ClockMin` and `ClockDay`, which the startd
    /// computes from local time (default 0: UTC).
    pub utc_offset: i64,
}

impl Policy {
    /// Reads the policy from a configuration (with HTCondor's defaults for
    /// what it leaves unset). Build the configuration with
    /// [`Loader::subsystem("STARTD")`](crate::config::Loader::subsystem) for
    /// `STARTD.NAME` settings to apply.
    ///
    /// `$RANDOM_INTEGER(min, max, step)` in a policy expression (the
    /// default `PERIODIC_CHECKPOINT` has one) stands for the middle of its
    /// range, rounded down to the step, and `$RANDOM_CHOICE(a, b, ...)` for
    /// its first choice, so that a policy behaves the same on every run.
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// use matchmaker::startd::{Policy, PolicyError};
    /// let err = Policy::from_config(&Config::parse_str("PREEMPT = (\n", "bad.conf")?).unwrap_err();
    /// assert!(matches!(err, PolicyError::BadExpr { ref name, .. } if name == "PREEMPT"));
    /// assert!(err.to_string().contains("bad.conf, line 1"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_config(config: &Config) -> Result<Policy, PolicyError> {
        let mut ad = ClassAd::new();
        for name in REQUIRED {
            let expr = read(config, name)?.ok_or_else(|| PolicyError::Missing { name: name.to_string() })?;
            ad.insert(name, expr);
        }
        ad.insert("WANT_HOLD", read(config, "WANT_HOLD")?.unwrap_or_else(|| Expr::from(false)));
        for name in OPTIONAL {
            if let Some(expr) = read(config, name)? {
                ad.insert(name, expr);
            }
        }
        let backfill = config.get_bool("ENABLE_BACKFILL").unwrap_or(false);
        if backfill {
            for name in ["START_BACKFILL", "EVICT_BACKFILL"] {
                if let Some(expr) = read(config, name)? {
                    ad.insert(name, expr);
                }
            }
        }
        let is_owner = match read(config, "IsOwner")? {
            Some(e) => e,
            None => match read(config, "IS_OWNER")? {
                Some(e) => e,
                None => parse_text("IsOwner", "(START =?= False)", "the startd's default")?,
            },
        };
        ad.insert("IsOwner", is_owner);
        let cpu_busy = match read(config, "CpuBusy")? {
            Some(e) => e,
            None => read(config, "cpu_busy")?.unwrap_or_else(|| Expr::from(false)),
        };
        ad.insert("CpuBusy", cpu_busy);
        for list in ["STARTD_ATTRS", "STARTD_EXPRS"] {
            for name in names(config, list) {
                if ad.contains(name.as_str()) {
                    continue;
                }
                if let Some(expr) = read(config, &name)? {
                    ad.insert(name.as_str(), expr);
                }
            }
        }
        let mut latches: Vec<String> = Vec::new();
        for name in names(config, "STARTD_LATCH_EXPRS").into_iter().chain(names(config, "SYSTEM_STARTD_LATCH_EXPRS")) {
            if !latches.iter().any(|l| l.eq_ignore_ascii_case(&name)) {
                latches.push(name);
            }
        }
        Ok(Policy {
            ad,
            match_timeout: int_knob(config, "MATCH_TIMEOUT", 120)?,
            killing_timeout: int_knob(config, "KILLING_TIMEOUT", 30)?,
            polling_interval: int_knob(config, "POLLING_INTERVAL", 5)?.max(1),
            update_interval: int_knob(config, "UPDATE_INTERVAL", 300)?.max(1),
            backfill,
            latches,
            alive_interval: int_knob(config, "ALIVE_INTERVAL", 300)?,
            max_claim_alives_missed: int_knob(config, "MAX_CLAIM_ALIVES_MISSED", 6)?,
            utc_offset: 0,
        })
    }

    /// Reads a policy from configuration text on top of HTCondor's
    /// defaults (a shorthand for [`Config::parse_str`] and
    /// [`from_config`](Policy::from_config)).
    ///
    /// ```
    /// use matchmaker::startd::Policy;
    /// let p = Policy::parse_str("use POLICY : ALWAYS_RUN_JOBS\nMATCH_TIMEOUT = 60\n", "always.conf")?;
    /// assert_eq!(p.match_timeout, 60);
    /// assert_eq!(p.expr("MaxJobRetirementTime").map(|e| e.to_string()), Some("2147483647".into()));
    /// # Ok::<(), matchmaker::startd::PolicyError>(())
    /// ```
    pub fn parse_str(text: &str, name: &str) -> Result<Policy, PolicyError> {
        Policy::from_config(&Config::parse_str(text, name)?)
    }

    /// The expression the startd holds under `name` (any case), if any.
    pub fn expr(&self, name: &str) -> Option<&Expr> {
        self.ad.get(name)
    }

    /// Replaces (or adds) a policy expression.
    ///
    /// ```
    /// use matchmaker::startd::Policy;
    /// let mut p = Policy::parse_str("", "defaults")?;
    /// p.set_expr("START", "KeyboardIdle > 900").expect("parses");
    /// assert_eq!(p.expr("START").map(|e| e.to_string()), Some("KeyboardIdle > 900".into()));
    /// # Ok::<(), matchmaker::startd::PolicyError>(())
    /// ```
    pub fn set_expr(&mut self, name: &str, text: &str) -> Result<(), PolicyError> {
        let expr = parse_text(name, text, "set_expr")?;
        self.ad.insert(name, expr);
        Ok(())
    }

    /// The policy's expressions as an ad (what the startd adds to every
    /// slot's ad).
    pub fn ad(&self) -> &ClassAd {
        &self.ad
    }
}

/// An integer knob, with the startd's fallback when it is unset.
fn int_knob(config: &Config, name: &str, fallback: i64) -> Result<i64, PolicyError> {
    match config.get_int(name) {
        Ok(v) => Ok(v),
        Err(ConfigError::Undefined { .. }) => Ok(fallback),
        Err(e) => Err(e.into()),
    }
}

/// The names of a list knob (separated by commas or white space).
fn names(config: &Config, list: &str) -> Vec<String> {
    let Some(found) = config.lookup(list) else { return Vec::new() };
    found.value.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// A knob's expression: `None` when unset or empty.
fn read(config: &Config, name: &str) -> Result<Option<Expr>, PolicyError> {
    let Some(found) = config.lookup(name) else { return Ok(None) };
    let value = config.expand(&found.raw).map_err(|e| match e {
        ConfigError::Expansion { message, .. } => ConfigError::Expansion { name: found.name.clone(), message },
        other => other,
    })?;
    let value = fixed_randoms(&value);
    if value.trim().is_empty() {
        return Ok(None);
    }
    classad::parse_expr(value.trim()).map(Some).map_err(|e| PolicyError::BadExpr {
        name: name.to_string(),
        value: value.trim().to_string(),
        set_at: found.source.to_string(),
        message: e.to_string(),
    })
}

fn parse_text(name: &str, text: &str, set_at: &str) -> Result<Expr, PolicyError> {
    classad::parse_expr(text).map_err(|e| PolicyError::BadExpr {
        name: name.to_string(),
        value: text.to_string(),
        set_at: set_at.to_string(),
        message: e.to_string(),
    })
}

/// `$RANDOM_INTEGER(min, max[, step])` replaced by the middle of its range
/// (rounded down to the step) and `$RANDOM_CHOICE(a, ...)` by `a`.
fn fixed_randoms(text: &str) -> String {
    static INTEGER: OnceLock<Option<Regex>> = OnceLock::new();
    static CHOICE: OnceLock<Option<Regex>> = OnceLock::new();
    let integer =
        INTEGER.get_or_init(|| Regex::new(r"\$RANDOM_INTEGER\(\s*(-?\d+)\s*,\s*(-?\d+)\s*(?:,\s*(\d+)\s*)?\)").ok());
    let choice = CHOICE.get_or_init(|| Regex::new(r"\$RANDOM_CHOICE\(\s*([^,)]*?)\s*(?:,[^)]*)?\)").ok());
    let mut out = text.to_string();
    if let Some(re) = integer {
        out = re
            .replace_all(&out, |c: &regex::Captures<'_>| {
                let lo: i64 = c[1].parse().unwrap_or(0);
                let hi: i64 = c[2].parse().unwrap_or(lo);
                let step: i64 = c.get(3).and_then(|s| s.as_str().parse().ok()).filter(|s| *s > 0).unwrap_or(1);
                let mid = lo + ((hi - lo) / 2) / step * step;
                mid.to_string()
            })
            .into_owned();
    }
    if let Some(re) = choice {
        out = re.replace_all(&out, "$1").into_owned();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn randoms_are_fixed() {
        assert_eq!(fixed_randoms("180.0 + $RANDOM_INTEGER(-30,30,1)"), "180.0 + 0");
        assert_eq!(fixed_randoms("$RANDOM_INTEGER(10, 21, 5)"), "15");
        assert_eq!(fixed_randoms("$RANDOM_CHOICE(7,8,9) + 1"), "7 + 1");
    }

    #[test]
    fn defaults_are_htcondors() -> Result<(), PolicyError> {
        let p = Policy::parse_str("", "empty")?;
        for (name, text) in [
            ("START", "true"),
            ("SUSPEND", "false"),
            ("CONTINUE", "true"),
            ("PREEMPT", "false"),
            ("KILL", "false"),
            ("WANT_SUSPEND", "false"),
            ("WANT_VACATE", "true"),
            ("IsOwner", "false"),
            ("CLAIM_WORKLIFE", "1200"),
            ("MachineMaxVacateTime", "10 * 60"),
        ] {
            assert_eq!(p.expr(name).map(|e| e.to_string().to_lowercase()), Some(text.to_string()), "{name}");
        }
        assert!(p.expr("PERIODIC_CHECKPOINT").is_some());
        assert!(p.expr("MaxJobRetirementTime").is_none());
        assert_eq!((p.match_timeout, p.killing_timeout, p.polling_interval), (120, 30, 5));
        Ok(())
    }

    #[test]
    fn startd_attrs_and_latches_are_read() -> Result<(), PolicyError> {
        let p = Policy::parse_str("IsDesktop = True\nSTARTD_ATTRS = IsDesktop\nuse POLICY : DESKTOP\n", "desk.conf")?;
        assert_eq!(p.expr("IsDesktop").map(|e| e.to_string()), Some("true".into()));
        assert_eq!(p.latches.first().map(String::as_str), Some("CpuBusy"));
        assert!(p.expr("CpuBusy").expect("set").to_string().contains("LoadAvg"));
        Ok(())
    }

    #[test]
    fn a_required_knob_left_empty_is_an_error() {
        let err = Policy::parse_str("SUSPEND =\n", "e.conf").unwrap_err();
        assert!(matches!(err, PolicyError::Missing { ref name } if name == "SUSPEND"), "{err}");
    }
}
