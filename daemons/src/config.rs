//! The daemon's HTCondor configuration: found as HTCondor finds it, read
//! with the project's reader ([`matchmaker::config`]) as the daemon's
//! subsystem and local name read it, and the standard knobs every daemon
//! uses.
//!
//! Names are looked up as `lookup_macro` does (config.cpp, 23.9):
//! `LOCALNAME.X` (with `-local-name`), then `SUBSYS.X`, then `X`, in the
//! files and then in HTCondor's defaults, for the daemon's own lookups and
//! for the macros inside values alike.
//!
//! ```
//! use daemons::config::DaemonConfig;
//! let text = "LOG = /var/log/condor\nCOLLECTOR.MAX_COLLECTOR_LOG = 2 Mb\nNOT_RESPONDING_TIMEOUT = 600\n\
//!             VIEW.COLLECTOR_DEBUG = D_FULLDEBUG\n";
//! let c = DaemonConfig::parse_str(text, "COLLECTOR", Some("VIEW"))?;
//! assert_eq!(c.log_file().as_deref(), Some(std::path::Path::new("/var/log/condor/CollectorLog")));
//! assert_eq!(c.max_log_bytes(), 2 << 20);
//! assert_eq!(c.debug_flags(), "D_FULLDEBUG");
//! assert_eq!(c.not_responding_timeout(), 600);
//! // The address file of a daemon with a local name is VIEW.COLLECTOR_ADDRESS_FILE: no default.
//! assert_eq!(c.address_file(), None);
//! # Ok::<(), daemons::config::DaemonConfigError>(())
//! ```

use std::path::{Path, PathBuf};

use matchmaker::config::{Config, ConfigError, Loader};

/// Where HTCondor looks for its top file when `CONDOR_CONFIG` is not set
/// (`find_global`, less `~condor/condor_config`).
pub const STANDARD_LOCATIONS: [&str; 2] = ["/etc/condor/condor_config", "/usr/local/etc/condor_config"];

/// Why the configuration could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DaemonConfigError {
    /// No file to read.
    #[error(
        "Neither the environment variable CONDOR_CONFIG, /etc/condor/, nor /usr/local/etc/ contain a condor_config source"
    )]
    NotFound,
    /// `CONDOR_CONFIG` (or `-c`) names a file that cannot be read.
    #[error("cannot read the configuration file {path}: {source}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The reader refused the configuration.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// Finds the top configuration file: `explicit` (`-c`), else
/// `CONDOR_CONFIG`, else the [`STANDARD_LOCATIONS`]. `Ok(None)` means
/// `CONDOR_CONFIG=ONLY_ENV`: no file, the `_CONDOR_*` variables only.
pub fn locate(explicit: Option<&Path>) -> Result<Option<PathBuf>, DaemonConfigError> {
    let from_env = std::env::var_os("CONDOR_CONFIG").map(PathBuf::from);
    if let Some(path) = explicit.map(Path::to_path_buf).or(from_env) {
        if path.as_os_str() == "ONLY_ENV" {
            return Ok(None);
        }
        return match std::fs::metadata(&path) {
            Ok(_) => Ok(Some(path)),
            Err(source) => Err(DaemonConfigError::Unreadable { path, source }),
        };
    }
    STANDARD_LOCATIONS.iter().map(PathBuf::from).find(|p| p.is_file()).map(Some).ok_or(DaemonConfigError::NotFound)
}

/// A daemon's configuration.
#[derive(Debug, Clone)]
pub struct DaemonConfig {
    config: Config,
    subsystem: String,
    local_name: Option<String>,
    path: Option<PathBuf>,
}

pub use matchmaker::config::parse_size;

impl DaemonConfig {
    fn loader(subsystem: &str, local_name: Option<&str>) -> Loader {
        let loader = Loader::new().subsystem(subsystem);
        match local_name {
            Some(name) => loader.local_name(name),
            None => loader,
        }
    }

    /// Reads the configuration of `subsystem` (with `local_name`) from
    /// [`locate`]'s file, or from the `_CONDOR_*` variables alone for
    /// `CONDOR_CONFIG=ONLY_ENV`.
    pub fn load(
        subsystem: &str,
        local_name: Option<&str>,
        explicit: Option<&Path>,
    ) -> Result<DaemonConfig, DaemonConfigError> {
        let path = locate(explicit)?;
        let loader = DaemonConfig::loader(subsystem, local_name);
        let config = match &path {
            Some(p) => loader.load_file(p)?,
            None => {
                // ONLY_ENV: each _CONDOR_NAME variable is a NAME = value line.
                let mut text = String::new();
                for (k, v) in std::env::vars() {
                    if let Some(name) = k.strip_prefix("_CONDOR_") {
                        if !name.is_empty() && !v.contains('\n') {
                            text.push_str(&format!("{name} = {v}\n"));
                        }
                    }
                }
                loader.parse_str(&text, "environment")?
            }
        };
        Ok(DaemonConfig {
            config,
            subsystem: subsystem.to_ascii_uppercase(),
            local_name: local_name.map(str::to_owned),
            path,
        })
    }

    /// A configuration from text, for tests and tools.
    pub fn parse_str(text: &str, subsystem: &str, local_name: Option<&str>) -> Result<DaemonConfig, DaemonConfigError> {
        let config = DaemonConfig::loader(subsystem, local_name).parse_str(text, "config")?;
        Ok(DaemonConfig {
            config,
            subsystem: subsystem.to_ascii_uppercase(),
            local_name: local_name.map(str::to_owned),
            path: None,
        })
    }

    /// The reader's configuration, for every other knob.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The subsystem (`COLLECTOR`, ...).
    pub fn subsystem(&self) -> &str {
        &self.subsystem
    }

    /// The `-local-name`, if any.
    pub fn local_name(&self) -> Option<&str> {
        self.local_name.as_deref()
    }

    /// The top file read (`None` for `ONLY_ENV` and text).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// `name`'s expanded value; `None` when undefined or empty (HTCondor's
    /// `param` gives no value for an empty one).
    pub fn get(&self, name: &str) -> Option<String> {
        self.config.lookup(name).map(|l| l.value.trim().to_owned()).filter(|v| !v.is_empty())
    }

    /// `name` as an integer, `default` when unset or not a number.
    pub fn get_int(&self, name: &str, default: i64) -> i64 {
        if self.get(name).is_none() {
            return default;
        }
        self.config.get_int(name).unwrap_or(default)
    }

    /// `name` as a boolean, `default` when unset or not a boolean.
    pub fn get_bool(&self, name: &str, default: bool) -> bool {
        if self.get(name).is_none() {
            return default;
        }
        self.config.get_bool(name).unwrap_or(default)
    }

    /// `<SUBSYS>_LOG`: the log file.
    pub fn log_file(&self) -> Option<PathBuf> {
        self.get(&format!("{}_LOG", self.subsystem)).map(PathBuf::from)
    }

    /// `MAX_<SUBSYS>_LOG`: rotate past this many bytes (10 MiB by
    /// default; 0 means never).
    pub fn max_log_bytes(&self) -> u64 {
        self.get(&format!("MAX_{}_LOG", self.subsystem)).and_then(|v| parse_size(&v)).unwrap_or(10 << 20)
    }

    /// `<SUBSYS>_DEBUG`: the debug flags (`D_FULLDEBUG D_COMMAND ...`).
    pub fn debug_flags(&self) -> String {
        self.get(&format!("{}_DEBUG", self.subsystem)).unwrap_or_default()
    }

    /// The address file, as `drop_addr_file` names its knob:
    /// `<LOCALNAME>.<SUBSYS>_ADDRESS_FILE` with a local name (so a second
    /// collector never overwrites the first one's file unless told to),
    /// else `<SUBSYS>_ADDRESS_FILE`.
    pub fn address_file(&self) -> Option<PathBuf> {
        let knob = match &self.local_name {
            Some(local) => format!("{local}.{}_ADDRESS_FILE", self.subsystem),
            None => format!("{}_ADDRESS_FILE", self.subsystem),
        };
        self.get(&knob).map(PathBuf::from)
    }

    /// `<SUBSYS>_NOT_RESPONDING_TIMEOUT`, else `NOT_RESPONDING_TIMEOUT`
    /// (3600 s), at least 1: how long the master waits for a keep-alive
    /// before it kills us as hung (`DaemonKeepAlive::reconfig`).
    pub fn not_responding_timeout(&self) -> i64 {
        let general = self.get_int("NOT_RESPONDING_TIMEOUT", 3600).max(1);
        self.get_int(&format!("{}_NOT_RESPONDING_TIMEOUT", self.subsystem), general).max(1)
    }

    /// `SHUTDOWN_GRACEFUL_TIMEOUT` (30 minutes): how long a graceful stop
    /// may take before it becomes a fast one.
    pub fn shutdown_graceful_timeout(&self) -> i64 {
        self.get_int("SHUTDOWN_GRACEFUL_TIMEOUT", 30 * 60).max(1)
    }

    /// The port the collector listens on standalone: `COLLECTOR_HOST`'s
    /// (its first entry), else `COLLECTOR_PORT` (9618).
    pub fn collector_port(&self) -> u16 {
        let default = u16::try_from(self.get_int("COLLECTOR_PORT", 9618)).unwrap_or(9618);
        let Some(host) = self.get("COLLECTOR_HOST") else { return default };
        let first = host.split([',', ' ', '\t']).find(|h| !h.is_empty()).unwrap_or("");
        let first = first.trim_start_matches('<');
        let first = first.split(['?', '>']).next().unwrap_or("");
        match first.rsplit_once(':') {
            Some((_, port)) => port.parse().unwrap_or(default),
            None => default,
        }
    }

    /// The collectors of `COLLECTOR_HOST`, as sinful strings: each entry
    /// (`host`, `host:port` or a sinful string), with `COLLECTOR_PORT`
    /// (9618) when it names no port.
    ///
    /// ```
    /// let c = daemons::config::DaemonConfig::parse_str("COLLECTOR_HOST = cm.example:9620, 10.0.0.2", "NEGOTIATOR", None)?;
    /// assert_eq!(c.collectors(), ["<cm.example:9620>", "<10.0.0.2:9618>"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn collectors(&self) -> Vec<String> {
        let default = self.get_int("COLLECTOR_PORT", 9618);
        let Some(hosts) = self.get("COLLECTOR_HOST") else { return Vec::new() };
        hosts
            .split([',', ' ', '\t'])
            .filter(|h| !h.is_empty())
            .map(|h| {
                if h.starts_with('<') {
                    h.to_owned()
                } else if h.contains(':') {
                    format!("<{h}>")
                } else {
                    format!("<{h}:{default}>")
                }
            })
            .collect()
    }

    /// `FULL_HOSTNAME`, else the machine's host name, else `localhost`.
    pub fn full_hostname(&self) -> String {
        self.get("FULL_HOSTNAME")
            .filter(|h| !h.is_empty())
            .or_else(crate::socket::hostname)
            .unwrap_or_else(|| "localhost".to_owned())
    }

    /// `NETWORK_INTERFACE` when it is an IP address (a pattern or a name is
    /// not resolved here).
    pub fn network_interface(&self) -> Option<std::net::IpAddr> {
        self.get("NETWORK_INTERFACE").and_then(|v| v.parse().ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_in_htcondors_order() {
        let text = "X = plain\nCOLLECTOR.X = subsys\nSECOND.X = local\nY = $(X)\nCOLLECTOR_ADDRESS_FILE = /a\n\
                    SECOND.COLLECTOR_ADDRESS_FILE = /b\n";
        let plain = DaemonConfig::parse_str(text, "COLLECTOR", None).unwrap();
        assert_eq!(plain.get("X").as_deref(), Some("subsys"));
        assert_eq!(plain.address_file(), Some(PathBuf::from("/a")));
        let second = DaemonConfig::parse_str(text, "COLLECTOR", Some("SECOND")).unwrap();
        assert_eq!(second.get("X").as_deref(), Some("local"));
        assert_eq!(second.get("Y").as_deref(), Some("local"));
        assert_eq!(second.address_file(), Some(PathBuf::from("/b")));
        let other = DaemonConfig::parse_str(text, "NEGOTIATOR", None).unwrap();
        assert_eq!(other.get("X").as_deref(), Some("plain"));
    }

    #[test]
    fn standard_knobs_and_their_defaults() {
        let c = DaemonConfig::parse_str("LOG = /l\n", "COLLECTOR", None).unwrap();
        assert_eq!(c.address_file(), Some(PathBuf::from("/l/.collector_address")));
        assert_eq!(c.max_log_bytes(), 10 << 20);
        assert_eq!(c.not_responding_timeout(), 3600);
        assert_eq!(c.shutdown_graceful_timeout(), 1800);
        assert_eq!(c.collector_port(), 9618);
        assert_eq!(c.debug_flags(), "");
        let c = DaemonConfig::parse_str(
            "COLLECTOR_NOT_RESPONDING_TIMEOUT = 90\nNOT_RESPONDING_TIMEOUT = 0\nCOLLECTOR_HOST = cm.example.org:9620, backup:9621\n\
             NETWORK_INTERFACE = 127.0.0.1\n",
            "COLLECTOR",
            None,
        )
        .unwrap();
        assert_eq!(c.not_responding_timeout(), 90);
        assert_eq!(c.collector_port(), 9620);
        assert_eq!(c.network_interface(), Some(std::net::IpAddr::from([127, 0, 0, 1])));
        let c = DaemonConfig::parse_str(
            "NOT_RESPONDING_TIMEOUT = -5\nCOLLECTOR_HOST = <10.0.0.1:9777?sock=x>\n",
            "COLLECTOR",
            None,
        )
        .unwrap();
        assert_eq!(c.not_responding_timeout(), 1);
        assert_eq!(c.collector_port(), 9777);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("10 Mb"), Some(10 << 20));
        assert_eq!(parse_size("64Kb"), Some(64 << 10));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("0"), Some(0));
        assert_eq!(parse_size("ten"), None);
        assert_eq!(parse_size("5 parsecs"), None);
        assert_eq!(parse_size("99999999999999999 Tb"), None);
    }

    #[test]
    fn locating_the_file() {
        let dir = std::env::temp_dir().join(format!("daemons-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("condor_config");
        std::fs::write(&file, "LOG = /tmp\nCOLLECTOR_DEBUG = D_COMMAND\n").unwrap();
        assert_eq!(locate(Some(&file)).unwrap(), Some(file.clone()));
        assert!(matches!(locate(Some(&dir.join("missing"))), Err(DaemonConfigError::Unreadable { .. })));
        assert_eq!(locate(Some(Path::new("ONLY_ENV"))).unwrap(), None);
        let c = DaemonConfig::load("COLLECTOR", None, Some(&file)).unwrap();
        assert_eq!(c.debug_flags(), "D_COMMAND");
        assert_eq!(c.path(), Some(file.as_path()));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_anchor_chroots_real_config_reads() {
        // HTCondor 23.9's own files (use ROLE, metaknobs, config.d), when present.
        let top = Path::new("/work/chroot/etc/condor/condor_config");
        if !top.is_file() {
            return;
        }
        // Its LOCAL_CONFIG_DIR (/etc/condor/config.d) is the host's path
        // from outside the chroot, so the top file is what is checked here.
        let c = DaemonConfig::load("COLLECTOR", None, Some(top)).unwrap();
        assert!(c.get("SBIN").is_some_and(|d| d.ends_with("/sbin")));
        let mini =
            DaemonConfig::load("COLLECTOR", None, Some(Path::new("/work/chroot/etc/condor/config.d/00-minicondor")));
        assert!(mini.unwrap().get("DAEMON_LIST").is_some_and(|d| d.contains("COLLECTOR")));
    }
}
