//! The collector's own knobs, read from HTCondor configuration.

use std::sync::Arc;

use crate::store::DEFAULT_CLASSAD_LIFETIME;
use crate::validate::{Requirements, COLLECTOR_REQUIREMENTS};

/// A knob the collector cannot run with (the C++ collector `EXCEPT`s, at
/// start and at a reconfig alike).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Handling of '{knob}={value}' failed: {reason}")]
pub struct ConfigError {
    /// The knob.
    pub knob: String,
    /// Its value.
    pub value: String,
    /// What is wrong with it.
    pub reason: String,
}

/// The default `COLLECTOR_UPDATE_INTERVAL`: how often the collector
/// remakes its own ad, in seconds.
pub const DEFAULT_UPDATE_INTERVAL: i64 = 900;

/// What the collector reads from the configuration (the security knobs
/// are read by [`cedar::handshake::ServerConfig::from_config`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CollectorConfig {
    /// `COLLECTOR_NAME`: the pool's name, in the collector's ad as
    /// `<name>@<host>` (or as given when it holds an `@`).
    pub name: Option<String>,
    /// The subsystem's local name (`-local-name`), the ad's name when
    /// there is no `COLLECTOR_NAME`.
    pub local_name: Option<String>,
    /// This host's fully qualified name.
    pub hostname: String,
    /// `CLASSAD_LIFETIME`: how long an ad lives without an update, unless
    /// it carries its own `ClassAdLifetime`; also the housekeeping period.
    pub classad_lifetime: i64,
    /// `COLLECTOR_UPDATE_INTERVAL`: how often the collector's own ad is
    /// remade.
    pub update_interval: i64,
    /// `CONDOR_ADMIN`, copied into the collector's ad.
    pub condor_admin: Option<String>,
    /// `COLLECTOR_REQUIREMENTS`: what every update must satisfy (see
    /// [`crate::validate`]).
    pub requirements: Option<Arc<Requirements>>,
    /// `COLLECTOR_ALLOW_ONLY_ONE_NEGOTIATOR`: a negotiator's update first
    /// removes every stored negotiator ad.
    pub allow_only_one_negotiator: bool,
    /// `EXPIRE_INVALIDATED_ADS`: an invalidation by name expires the ad
    /// rather than removing it, which (without persistent offline ads)
    /// differs only in keeping the StartD ad made from an old startd's
    /// slot 1 until its own lifetime ends.
    pub expire_invalidated_ads: bool,
}

impl CollectorConfig {
    /// The defaults for a collector on `hostname`.
    pub fn new(hostname: impl Into<String>) -> CollectorConfig {
        CollectorConfig {
            name: None,
            local_name: None,
            hostname: hostname.into(),
            classad_lifetime: DEFAULT_CLASSAD_LIFETIME,
            update_interval: DEFAULT_UPDATE_INTERVAL,
            condor_admin: None,
            requirements: None,
            allow_only_one_negotiator: false,
            expire_invalidated_ads: false,
        }
    }

    /// Reads the knobs through `lookup` (which applies the `COLLECTOR.`
    /// prefixes, as `param()` does); unset or unreadable numbers keep
    /// their defaults, as HTCondor's `param_integer` does, and booleans as
    /// `param_boolean` reads them. A `COLLECTOR_REQUIREMENTS` that does not
    /// parse is an error (an empty one is no requirement).
    ///
    /// ```
    /// use collector::config::CollectorConfig;
    /// let knobs = |k: &str| match k {
    ///     "COLLECTOR_NAME" => Some("My Pool".to_string()),
    ///     "CLASSAD_LIFETIME" => Some("120".to_string()),
    ///     _ => None,
    /// };
    /// let config = CollectorConfig::from_config("cm.example.org", &knobs)?;
    /// assert_eq!(config.classad_lifetime, 120);
    /// assert_eq!(config.ad_name(), "My Pool@cm.example.org");
    /// assert!(config.requirements.is_none());
    /// let bad = |k: &str| (k == "COLLECTOR_REQUIREMENTS").then(|| "Name ==".to_string());
    /// assert!(CollectorConfig::from_config("cm.example.org", &bad).is_err());
    /// # Ok::<(), collector::config::ConfigError>(())
    /// ```
    pub fn from_config(
        hostname: &str,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<CollectorConfig, ConfigError> {
        let int = |k: &str, default: i64| {
            lookup(k).and_then(|v| v.trim().parse::<i64>().ok()).filter(|v| *v > 0).unwrap_or(default)
        };
        let text = |k: &str| lookup(k).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        let boolean = |k: &str| lookup(k).and_then(|v| parse_bool(&v)).unwrap_or(false);
        let requirements = match text(COLLECTOR_REQUIREMENTS) {
            Some(source) => Some(Arc::new(Requirements::parse(&source).map_err(|_| ConfigError {
                knob: COLLECTOR_REQUIREMENTS.to_owned(),
                value: source.clone(),
                reason: "failed to parse expression".to_owned(),
            })?)),
            None => None,
        };
        Ok(CollectorConfig {
            name: text("COLLECTOR_NAME"),
            local_name: None,
            hostname: hostname.to_owned(),
            classad_lifetime: int("CLASSAD_LIFETIME", DEFAULT_CLASSAD_LIFETIME),
            update_interval: int("COLLECTOR_UPDATE_INTERVAL", DEFAULT_UPDATE_INTERVAL),
            condor_admin: text("CONDOR_ADMIN"),
            requirements,
            allow_only_one_negotiator: boolean("COLLECTOR_ALLOW_ONLY_ONE_NEGOTIATOR"),
            expire_invalidated_ads: boolean("EXPIRE_INVALIDATED_ADS"),
        })
    }

    /// The `Name` of the collector's own ad, as `init_classad` makes it:
    /// `COLLECTOR_NAME@host` (or `COLLECTOR_NAME` itself when it holds an
    /// `@`), else the local name, else the host name.
    ///
    /// ```
    /// let mut config = collector::config::CollectorConfig::new("cm.example.org");
    /// assert_eq!(config.ad_name(), "cm.example.org");
    /// config.name = Some("pool@elsewhere".into());
    /// assert_eq!(config.ad_name(), "pool@elsewhere");
    /// ```
    pub fn ad_name(&self) -> String {
        match (&self.name, &self.local_name) {
            (Some(name), _) if name.contains('@') => name.clone(),
            (Some(name), _) => format!("{name}@{}", self.hostname),
            (None, Some(local)) => local.clone(),
            (None, None) => self.hostname.clone(),
        }
    }
}

/// A boolean knob as `param_boolean` reads it (`string_is_boolean_param`):
/// `true`, `false`, `1` or `0` in any case, else an expression that
/// evaluates to a boolean or a number; `None` for anything else.
fn parse_bool(value: &str) -> Option<bool> {
    let v = value.trim();
    match v.to_ascii_lowercase().as_str() {
        "" => return None,
        "true" | "1" => return Some(true),
        "false" | "0" => return Some(false),
        _ => {}
    }
    match classad::parse_expr(v).ok()?.eval() {
        classad::Value::Bool(b) => Some(b),
        classad::Value::Int(i) => Some(i != 0),
        classad::Value::Real(r) => Some(r != 0.0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_read_as_param_boolean_reads_them() {
        for (v, want) in [("True", Some(true)), ("1", Some(true)), ("FALSE", Some(false)), ("0", Some(false))] {
            assert_eq!(parse_bool(v), want, "{v}");
        }
        assert_eq!(parse_bool("1 + 1"), Some(true));
        assert_eq!(parse_bool("2 < 1"), Some(false));
        assert_eq!(parse_bool("maybe"), None);
        assert_eq!(parse_bool(""), None);
    }

    #[test]
    fn the_knobs_are_read() {
        let knobs = |k: &str| match k {
            "COLLECTOR_REQUIREMENTS" => Some(" MyType =!= \"Junk\" ".to_string()),
            "COLLECTOR_ALLOW_ONLY_ONE_NEGOTIATOR" => Some("True".to_string()),
            "EXPIRE_INVALIDATED_ADS" => Some("true".to_string()),
            _ => None,
        };
        let c = CollectorConfig::from_config("h", &knobs).expect("valid knobs");
        assert_eq!(c.requirements.as_deref().map(Requirements::source), Some("MyType =!= \"Junk\""));
        assert!(c.allow_only_one_negotiator);
        assert!(c.expire_invalidated_ads);
        let empty = |k: &str| (k == "COLLECTOR_REQUIREMENTS").then(|| "  ".to_string());
        assert!(CollectorConfig::from_config("h", &empty).expect("valid").requirements.is_none());
    }
}
