//! The collector's own knobs, read from HTCondor configuration.

use crate::store::DEFAULT_CLASSAD_LIFETIME;

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
        }
    }

    /// Reads the knobs through `lookup` (which applies the `COLLECTOR.`
    /// prefixes, as `param()` does); unset or unreadable numbers keep
    /// their defaults, as HTCondor's `param_integer` does.
    ///
    /// ```
    /// use collector::config::CollectorConfig;
    /// let knobs = |k: &str| match k {
    ///     "COLLECTOR_NAME" => Some("My Pool".to_string()),
    ///     "CLASSAD_LIFETIME" => Some("120".to_string()),
    ///     _ => None,
    /// };
    /// let config = CollectorConfig::from_config("cm.example.org", &knobs);
    /// assert_eq!(config.classad_lifetime, 120);
    /// assert_eq!(config.ad_name(), "My Pool@cm.example.org");
    /// ```
    pub fn from_config(hostname: &str, lookup: &dyn Fn(&str) -> Option<String>) -> CollectorConfig {
        let int = |k: &str, default: i64| {
            lookup(k).and_then(|v| v.trim().parse::<i64>().ok()).filter(|v| *v > 0).unwrap_or(default)
        };
        let text = |k: &str| lookup(k).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        CollectorConfig {
            name: text("COLLECTOR_NAME"),
            local_name: None,
            hostname: hostname.to_owned(),
            classad_lifetime: int("CLASSAD_LIFETIME", DEFAULT_CLASSAD_LIFETIME),
            update_interval: int("COLLECTOR_UPDATE_INTERVAL", DEFAULT_UPDATE_INTERVAL),
            condor_admin: text("CONDOR_ADMIN"),
        }
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
