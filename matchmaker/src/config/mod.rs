//! HTCondor configuration files, read as `condor_config_val` reads them.
//!
//! A [`Config`] holds the values of a set of files on top of HTCondor's
//! defaults. Values are stored raw and expanded when asked for, so a later
//! definition of a macro changes every value that uses it, as in HTCondor.
//!
//! ```
//! use matchmaker::config::Config;
//!
//! let config = Config::parse_str(
//!     "# a negotiator's settings\n\
//!      PRIORITY_HALFLIFE = $(HOUR_SECONDS) * 12\n\
//!      HOUR_SECONDS = 3600\n\
//!      use POLICY : ALWAYS_RUN_JOBS\n",
//!     "negotiator.conf",
//! )?;
//! assert_eq!(config.get_int("PRIORITY_HALFLIFE")?, 43200);
//! assert_eq!(config.get_real("DEFAULT_PRIO_FACTOR")?, 1000.0); // HTCondor's default
//! assert!(!config.get_bool("NEGOTIATOR_CONSIDER_PREEMPTION")?); // set by the policy
//! let at = config.lookup("NEGOTIATOR_CONSIDER_PREEMPTION").expect("a default").source;
//! assert_eq!(at.to_string(), "negotiator.conf, line 4, use POLICY:ALWAYS_RUN_JOBS+8");
//! # Ok::<(), matchmaker::config::ConfigError>(())
//! ```
//!
//! What is read: `NAME = value` (names in any case, the last definition
//! wins), `NAME @=tag` ... `@tag` multi-line values, `\` continuations,
//! `#` comments, `$(NAME)`, `$(NAME:default)`, `$ENV(X)`, `$(DOLLAR)`,
//! `$$(...)` (kept for the negotiator), `if`/`elif`/`else`/`endif` with
//! `defined`, `version` comparisons and booleans, `use CATEGORY : KNOB(args)`
//! with HTCondor's metaknob texts, `error :` and `warning :`. From a top
//! file ([`Config::from_file`]) `CONFIG_ROOT`, `LOCAL_CONFIG_DIR`,
//! `LOCAL_CONFIG_FILE` and `_CONDOR_NAME` environment variables are
//! followed as HTCondor follows them.
//!
//! What is refused: `include :` statements (files and commands) and piped
//! `LOCAL_CONFIG_FILE` commands, with an error naming the file and line.
//! `$RANDOM_INTEGER(...)`, `$RANDOM_CHOICE(...)` and the other
//! `$FUNCTION(...)` macros are left unexpanded, with a warning.

pub(crate) mod conditional;
mod cycle;
mod defaults;
mod error;
mod expand;
mod files;
mod lines;
mod memo;
mod metaknobs;
mod parse;
mod source;
mod text;
pub mod tool;
mod typed;

use std::path::Path;
use std::sync::Arc;

use rustc_hash::FxHashMap;

pub use conditional::HTCONDOR_VERSION;
pub use cycle::CycleLink;
pub use error::{ConfigError, Location};
pub use source::{MetaOrigin, Source};
pub use typed::parse_size;

use defaults::Defaults;
use expand::{expand, expand_full, expand_in, Failure, Mode};
use memo::Memo;

/// Bounds on what a configuration may hold, so that hostile files give
/// errors rather than exhausting memory or time.
///
/// ```
/// use matchmaker::config::{Limits, Loader};
/// let strict = Loader::new().limits(Limits { max_line: 80, ..Limits::default() });
/// let err = strict.parse_str(&format!("A = {}\n", "x".repeat(100)), "long.conf").unwrap_err();
/// assert!(err.to_string().starts_with("long.conf, line 1: line longer than the limit"));
/// ```
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest file read, in bytes (default 64 MiB).
    pub max_file: usize,
    /// Longest statement, continuations included, in bytes (default 1 MiB).
    pub max_line: usize,
    /// Longest value, as written or expanded, in bytes (default 1 MiB).
    pub max_value: usize,
    /// Most macro replacements while expanding one value (default 10,000);
    /// the text scanned while expanding one value is bounded too, to 16
    /// times `max_value`.
    pub max_expansions: usize,
    /// Most files read from LOCAL_CONFIG_FILE and LOCAL_CONFIG_DIR
    /// (default 10,000).
    pub max_files: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_file: 64 << 20, max_line: 1 << 20, max_value: 1 << 20, max_expansions: 10_000, max_files: 10_000 }
    }
}

/// The environment `$ENV(X)` and `_CONDOR_NAME` overrides read.
#[derive(Debug, Clone, Default)]
enum Env {
    /// The process's environment.
    #[default]
    Process,
    /// A fixed set of variables.
    Fixed(Arc<FxHashMap<String, String>>),
}

/// Reads configurations with chosen limits and environment.
///
/// ```
/// use matchmaker::config::Loader;
/// let loader = Loader::new().env([("SITE", "example.org")]);
/// let config = loader.parse_str("UID_DOMAIN = $ENV(SITE)\n", "site.conf")?;
/// assert_eq!(config.get_string("UID_DOMAIN")?, "example.org");
/// # Ok::<(), matchmaker::config::ConfigError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Loader {
    limits: Limits,
    env: Env,
    subsystem: Option<String>,
    local_name: Option<String>,
}

impl Loader {
    /// A loader with the default limits and the process's environment.
    pub fn new() -> Loader {
        Loader::default()
    }

    /// Uses these limits.
    pub fn limits(mut self, limits: Limits) -> Loader {
        self.limits = limits;
        self
    }

    /// Reads values as the daemon or tool `subsystem` (`NEGOTIATOR`,
    /// `TOOL`, ...) reads them: `SUBSYSTEM.NAME` wins over `NAME`, in the
    /// files and in HTCondor's defaults. `condor_config_val` reads as
    /// `TOOL`.
    ///
    /// ```
    /// use matchmaker::config::Loader;
    /// let text = "PRIORITY_HALFLIFE = 100\nNEGOTIATOR.PRIORITY_HALFLIFE = 200\n";
    /// let negotiator = Loader::new().subsystem("NEGOTIATOR").parse_str(text, "n.conf")?;
    /// assert_eq!(negotiator.get_int("PRIORITY_HALFLIFE")?, 200);
    /// let other = Loader::new().parse_str(text, "n.conf")?;
    /// assert_eq!(other.get_int("PRIORITY_HALFLIFE")?, 100);
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    ///
    /// `$(SUBSYSTEM)` is then the subsystem's name, as in that daemon:
    ///
    /// ```
    /// use matchmaker::config::Loader;
    /// let text = "NEGOTIATOR_LOG = $(LOG)/$(SUBSYSTEM)Log\n";
    /// let negotiator = Loader::new().subsystem("NEGOTIATOR").parse_str(text, "n.conf")?;
    /// assert!(negotiator.get_string("NEGOTIATOR_LOG")?.ends_with("/NEGOTIATORLog"));
    /// assert_eq!(negotiator.get_string("LOCALNAME")?, "NEGOTIATOR");
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn subsystem(mut self, subsystem: &str) -> Loader {
        self.subsystem = Some(subsystem.to_string());
        self
    }

    /// Reads values as the daemon started with `-local-name local_name`
    /// reads them: `LOCAL_NAME.NAME` wins over `SUBSYSTEM.NAME`, which wins
    /// over `NAME` (HTCondor's `lookup_macro`, in the files and in the
    /// defaults alike).
    ///
    /// ```
    /// use matchmaker::config::Loader;
    /// let text = "A = 1\nCOLLECTOR.A = 2\nVIEW.A = 3\nB = $(A)\n";
    /// let view = Loader::new().subsystem("COLLECTOR").local_name("VIEW").parse_str(text, "v.conf")?;
    /// assert_eq!(view.get_int("A")?, 3);
    /// assert_eq!(view.get_int("B")?, 3); // macros are looked up the same way
    /// let plain = Loader::new().subsystem("COLLECTOR").parse_str(text, "v.conf")?;
    /// assert_eq!(plain.get_int("A")?, 2);
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn local_name(mut self, local_name: &str) -> Loader {
        self.local_name = Some(local_name.to_string()).filter(|n| !n.is_empty());
        self
    }

    /// Uses these variables as the whole environment (for `$ENV(X)` and
    /// `_CONDOR_NAME` overrides) instead of the process's.
    pub fn env<K: Into<String>, V: Into<String>>(mut self, vars: impl IntoIterator<Item = (K, V)>) -> Loader {
        self.env = Env::Fixed(Arc::new(vars.into_iter().map(|(k, v)| (k.into(), v.into())).collect()));
        self
    }

    /// A configuration with nothing read yet. With a subsystem, it has the
    /// values HTCondor detects for it before reading any file
    /// (`fill_attributes`): `SUBSYSTEM`, the subsystem's name, and
    /// `LOCALNAME`, the local name or else the subsystem's; a file may set
    /// them otherwise, as HTCondor lets it.
    fn empty(&self) -> Config {
        let mut config = Config {
            entries: Vec::new(),
            index: FxHashMap::default(),
            env: self.env.clone(),
            limits: self.limits.clone(),
            global_file: None,
            local_files: Vec::new(),
            warnings: Vec::new(),
            subsystem: self.subsystem.clone(),
            local_name: self.local_name.clone(),
            dump: false,
        };
        if let Some(subsystem) = &self.subsystem {
            let subsystem = subsystem.to_ascii_uppercase();
            let local = self.local_name.clone().unwrap_or_else(|| subsystem.clone());
            config.insert("SUBSYSTEM", subsystem, Source::Detected, false);
            config.insert("LOCALNAME", local, Source::Detected, false);
        }
        config
    }

    /// HTCondor's defaults only, with this loader's subsystem, environment
    /// and limits.
    ///
    /// ```
    /// use matchmaker::config::Loader;
    /// let tool = Loader::new().subsystem("TOOL").defaults();
    /// assert_eq!(tool.lookup("IsTool").map(|l| l.name), Some("TOOL.IsTool".to_string()));
    /// ```
    pub fn defaults(&self) -> Config {
        self.empty()
    }

    /// Reads a configuration text (no LOCAL_CONFIG_FILE, LOCAL_CONFIG_DIR
    /// or environment overrides); `name` stands for the file in messages and
    /// sources.
    pub fn parse_str(&self, text: &str, name: &str) -> Result<Config, ConfigError> {
        let mut config = self.empty();
        parse::parse_text(&mut config, text, name)?;
        Ok(config)
    }

    /// Reads a top configuration file as HTCondor reads `CONDOR_CONFIG`:
    /// sets `CONFIG_ROOT` to its directory, reads it, then the files of
    /// `LOCAL_CONFIG_DIR` (sorted, less those `LOCAL_CONFIG_DIR_EXCLUDE_REGEXP`
    /// matches) and of `LOCAL_CONFIG_FILE` (followed as it changes), then the
    /// `_CONDOR_NAME` variables of the environment. `condor_config_val
    /// -dump` output (its first line `# Configuration from ...`) is read
    /// alone, as the whole configuration it is ([`Config::is_dump`]).
    pub fn load_file(&self, path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let mut config = self.empty();
        files::load(&mut config, path.as_ref())?;
        Ok(config)
    }
}

/// Where a name was found.
enum Found {
    /// In the files: the entry's index.
    Entry(usize),
    /// In HTCondor's defaults: name and value.
    Default(&'static str, &'static str),
}

/// One stored value.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    raw: String,
    source: Source,
    multi_line: bool,
}

/// A value and where it comes from, as [`Config::lookup`] gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// The name as first spelled (in a file, or in HTCondor's table).
    pub name: String,
    /// The value as stored: macros other than self-references unexpanded.
    pub raw: String,
    /// The value with its macros expanded (empty if that fails; see
    /// [`Config::expand`]).
    pub value: String,
    /// Where it was set.
    pub source: Source,
    /// Whether the raw value spans several lines (`condor_config_val`
    /// prints those as `NAME @=end` ... `@end`).
    pub multi_line: bool,
}

/// A configuration: the values of a set of files on top of HTCondor's
/// defaults.
#[derive(Debug, Clone)]
pub struct Config {
    entries: Vec<Entry>,
    index: FxHashMap<String, usize>,
    env: Env,
    limits: Limits,
    global_file: Option<String>,
    local_files: Vec<String>,
    warnings: Vec<String>,
    subsystem: Option<String>,
    local_name: Option<String>,
    /// Read from `condor_config_val -dump` output, alone.
    dump: bool,
}

impl Default for Config {
    /// HTCondor's defaults only.
    fn default() -> Self {
        Loader::new().empty()
    }
}

impl Config {
    /// Reads a top configuration file with the process's environment and
    /// the default limits (see [`Loader::load_file`]).
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// let dir = std::env::temp_dir().join(format!("cfg-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("condor_config"), "LOCAL_CONFIG_FILE = $(CONFIG_ROOT)/local\nA = top\n").unwrap();
    /// std::fs::write(dir.join("local"), "A = local\n").unwrap();
    /// let config = Config::from_file(dir.join("condor_config"))?;
    /// assert_eq!(config.get_string("A")?, "local");
    /// assert_eq!(config.files().count(), 2);
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn from_file(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        Loader::new().load_file(path)
    }

    /// Reads a configuration text; `name` stands for the file in messages
    /// and sources.
    ///
    /// ```
    /// use matchmaker::config::{Config, ConfigError};
    /// let err = Config::parse_str("A = 1\nB\n", "bad.conf").unwrap_err();
    /// assert!(matches!(err, ConfigError::Syntax { ref at, .. } if at.line == 2));
    /// assert!(err.to_string().starts_with("bad.conf, line 2:"));
    /// ```
    pub fn parse_str(text: &str, name: &str) -> Result<Config, ConfigError> {
        Loader::new().parse_str(text, name)
    }

    /// The raw value of `name` (any case): the files' or else HTCondor's
    /// default.
    pub fn raw(&self, name: &str) -> Option<&str> {
        self.find_any(name).map(|f| match f {
            Found::Entry(i) => self.entries[i].raw.as_str(),
            Found::Default(_, v) => v,
        })
    }

    /// Finds `name` as HTCondor's lookup does: `LOCAL_NAME.NAME` (with a
    /// local name) in the files, then in the defaults, then
    /// `SUBSYSTEM.NAME` likewise, then `NAME` in the files, then in the
    /// defaults.
    fn find_any(&self, name: &str) -> Option<Found> {
        let defaults = Defaults::get();
        for prefix in [&self.local_name, &self.subsystem].into_iter().flatten() {
            let full = format!("{prefix}.{name}");
            if let Some(i) = self.find(&full) {
                return Some(Found::Entry(i));
            }
            if let Some((n, v)) = defaults.lookup(&full) {
                return Some(Found::Default(n, v));
            }
        }
        if let Some(i) = self.find(name) {
            return Some(Found::Entry(i));
        }
        defaults.lookup(name).map(|(n, v)| Found::Default(n, v))
    }

    /// `name`'s value, expanded, and where it was set; `None` if neither
    /// the files nor HTCondor's defaults define it.
    ///
    /// ```
    /// use matchmaker::config::{Config, Source};
    /// let c = Config::parse_str("A = $(B)x\nB = y\n", "f")?;
    /// let a = c.lookup("a").expect("defined");
    /// assert_eq!((a.name.as_str(), a.raw.as_str(), a.value.as_str()), ("A", "$(B)x", "yx"));
    /// assert!(matches!(a.source, Source::File { line: 1, .. }));
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn lookup(&self, name: &str) -> Option<Lookup> {
        self.lookup_in(name, &mut Memo::new(self)).map(|(l, _)| l)
    }

    /// [`lookup`](Config::lookup), with the error when the value's macros
    /// cannot be expanded (a cycle, a value past the limits) rather than an
    /// empty value; `Ok(None)` if nothing defines `name`.
    ///
    /// ```
    /// use matchmaker::config::{Config, ConfigError};
    /// let c = Config::parse_str("A = $(B)\nB = $(A)\n", "loop.conf")?;
    /// let err = c.try_lookup("A").unwrap_err();
    /// assert!(matches!(err, ConfigError::Cycle { ref chain, .. } if chain.len() == 2));
    /// assert_eq!(
    ///     err.to_string(),
    ///     "expanding A: macro cycle: A -> B -> A (A at loop.conf, line 1; B at loop.conf, line 2)"
    /// );
    /// assert!(c.try_lookup("NOPE")?.is_none());
    /// # Ok::<(), ConfigError>(())
    /// ```
    pub fn try_lookup(&self, name: &str) -> Result<Option<Lookup>, ConfigError> {
        match self.lookup_in(name, &mut Memo::new(self)) {
            None => Ok(None),
            Some((l, None)) => Ok(Some(l)),
            Some((_, Some(e))) => Err(e),
        }
    }

    /// The lookup, with `memo` shared by the lookups of one run (a dump)
    /// and the expansion's failure beside the value.
    fn lookup_in(&self, name: &str, memo: &mut Memo) -> Option<(Lookup, Option<ConfigError>)> {
        let (name, raw, source, multi_line) = match self.find_any(name)? {
            Found::Entry(i) => {
                let e = &self.entries[i];
                (e.name.clone(), e.raw.clone(), e.source.clone(), e.multi_line)
            }
            Found::Default(n, v) => (n.to_string(), v.to_string(), Source::Default, false),
        };
        let mut warnings = Vec::new();
        let (value, error) = match expand_in(self, &raw, Mode::All, &mut warnings, Some(&name), Some(memo)) {
            Ok(v) => (v, None),
            Err(f) => (String::new(), Some(failure(f, name.clone()))),
        };
        Some((Lookup { name, raw, value, source, multi_line }, error))
    }

    /// `name`'s name as first spelled and where its value is set.
    fn lookup_raw(&self, name: &str) -> Option<(String, Source)> {
        match self.find_any(name)? {
            Found::Entry(i) => Some((self.entries[i].name.clone(), self.entries[i].source.clone())),
            Found::Default(n, _) => Some((n.to_string(), Source::Default)),
        }
    }

    /// Expands the macros of `text` against this configuration.
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// let c = Config::parse_str("A = $(B)\nB = $(A)\n", "loop.conf")?;
    /// assert!(c.expand("$(A)").is_err()); // a cycle is an error, not a hang
    /// assert_eq!(c.expand("$$(Cpus) $(DOLLAR)")?, "$$(Cpus) $");
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn expand(&self, text: &str) -> Result<String, ConfigError> {
        self.expand_with_warnings(text).map(|(v, _)| v)
    }

    /// Expands `text`, with the warnings (unexpanded `$RANDOM_INTEGER(...)`
    /// and other function macros).
    pub fn expand_with_warnings(&self, text: &str) -> Result<(String, Vec<String>), ConfigError> {
        let mut warnings = Vec::new();
        let v = expand_full(self, text, Mode::All, &mut warnings, None, Some(Memo::new(self)))
            .map_err(|f| failure(f, shorten(text)))?;
        Ok((v, warnings))
    }

    /// The names `condor_config_val -dump` lists: every name the files set
    /// and every name HTCondor's defaults have (a subsystem's default, such
    /// as `TOOL.IsTool`, under the name after the subsystem), each once,
    /// sorted ignoring case. [`lookup`](Config::lookup) of each gives what
    /// the dump prints (with a subsystem, `FOO` may be found as
    /// `TOOL.FOO`).
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// let config = Config::parse_str("zz_mine = 1\n", "n.conf")?;
    /// let names = config.names();
    /// assert!(names.len() > 1000);
    /// assert_eq!(names.last().map(String::as_str), Some("zz_mine"));
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<(String, String)> =
            self.entries.iter().map(|e| (e.name.to_ascii_lowercase(), e.name.clone())).collect();
        for (n, _) in Defaults::get().iter() {
            let base = n.split_once('.').map_or(n, |(_, base)| base);
            names.push((base.to_ascii_lowercase(), base.to_string()));
        }
        names.sort_by(|a, b| a.0.cmp(&b.0));
        names.dedup_by(|a, b| a.0 == b.0);
        names.into_iter().map(|(_, n)| n).collect()
    }

    /// The files read: the top file, then the local ones, in order.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.global_file.iter().chain(self.local_files.iter()).map(String::as_str)
    }

    /// Whether the configuration was read from `condor_config_val -dump`
    /// output (recognized by its first line, `# Configuration from ...`).
    /// A dump is the whole configuration of the machine it was taken on,
    /// so [`Loader::load_file`] reads it alone: not the files its
    /// `LOCAL_CONFIG_FILE` and `LOCAL_CONFIG_DIR` name (they are this
    /// machine's, not that one's), nor `_CONDOR_` variables.
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// let dir = std::env::temp_dir().join(format!("dump-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("local"), "GROUP_NAMES = from_this_machine\n").unwrap();
    /// let local = dir.join("local").display().to_string();
    /// std::fs::write(
    ///     dir.join("config.dump"),
    ///     format!("# Configuration from machine: cm\nGROUP_NAMES = a, b\nLOCAL_CONFIG_FILE = {local}\n"),
    /// )
    /// .unwrap();
    /// let config = Config::from_file(dir.join("config.dump"))?;
    /// assert!(config.is_dump());
    /// assert_eq!(config.get_string("GROUP_NAMES")?, "a, b");
    /// assert_eq!(config.files().count(), 1);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn is_dump(&self) -> bool {
        self.dump
    }

    /// The local files (those `LOCAL_CONFIG_FILE` and `LOCAL_CONFIG_DIR`
    /// led to), in order, a missing `LOCAL_CONFIG_FILE` that need not exist
    /// included (as `condor_config_val` lists it): none for a dump.
    pub fn local_files(&self) -> impl Iterator<Item = &str> {
        self.local_files.iter().map(String::as_str)
    }

    /// Warnings of reading (`warning :` statements, `NAME : value`
    /// assignments, unexpanded function macros in names and conditions).
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// let config = Config::parse_str("warning : check $(A)\nA = 1\n", "w.conf")?;
    /// assert_eq!(config.warnings(), ["Config source Warning \"w.conf\", Line 1: check "]);
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Sets `name` to `value` (raw) as if a statement of `source` had, with
    /// references to its own previous value expanded.
    ///
    /// ```
    /// use matchmaker::config::{Config, Source};
    /// let mut config = Config::default();
    /// config.set("STARTD_ATTRS", "$(STARTD_ATTRS) CpusUsage", Source::Environment)?;
    /// assert_eq!(config.get_string("STARTD_ATTRS")?, " CpusUsage");
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn set(&mut self, name: &str, value: &str, source: Source) -> Result<(), ConfigError> {
        let mut warnings = Vec::new();
        let v = expand(self, value, Mode::SelfOnly(name), &mut warnings)
            .map_err(|message| ConfigError::Expansion { name: name.to_string(), message })?;
        self.insert(name, v, source, false);
        Ok(())
    }

    fn find(&self, name: &str) -> Option<usize> {
        if name.bytes().any(|b| b.is_ascii_uppercase()) {
            self.index.get(&name.to_ascii_lowercase()).copied()
        } else {
            self.index.get(name).copied()
        }
    }

    fn env_var(&self, name: &str) -> Option<String> {
        match &self.env {
            Env::Process => std::env::var(name).ok(),
            Env::Fixed(m) => m.get(name).cloned(),
        }
    }

    fn env_vars(&self) -> Vec<(String, String)> {
        match &self.env {
            Env::Process => {
                std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))).collect()
            }
            Env::Fixed(m) => {
                let mut v: Vec<_> = m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                v.sort();
                v
            }
        }
    }

    fn warn_all(&mut self, warnings: Vec<String>, at: &Location) {
        for w in warnings {
            let w = format!("{at}: {w}");
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
    }

    /// Stores a value. A new name whose value equals HTCondor's default is
    /// not stored (HTCondor keeps it as `<Default>`), unless it has a
    /// `PREFIX.` (HTCondor stores those).
    fn insert(&mut self, name: &str, raw: String, source: Source, here: bool) {
        if let Some(i) = self.find(name) {
            let e = &mut self.entries[i];
            e.multi_line = here || raw.contains('\n');
            e.raw = raw;
            e.source = source;
            return;
        }
        if let Some(def) = Defaults::get().value(name).filter(|_| !name.contains('.')) {
            let same = def == raw
                || (def.eq_ignore_ascii_case(&raw)
                    && (def.eq_ignore_ascii_case("true") || def.eq_ignore_ascii_case("false")));
            if same {
                return;
            }
        }
        self.index.insert(name.to_ascii_lowercase(), self.entries.len());
        let multi_line = here || raw.contains('\n');
        self.entries.push(Entry { name: name.to_string(), raw, source, multi_line });
    }
}

/// The error of a failed expansion of `name` (a value's name, or the text).
fn failure(f: Failure, name: String) -> ConfigError {
    match f {
        Failure::Limit(message) => ConfigError::Expansion { name, message },
        Failure::Cycle(chain) => ConfigError::Cycle { name, chain },
    }
}

fn shorten(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

/// Whether `c` may be part of a macro name in `$(NAME)` (letters, digits,
/// `_`, `.` and `/`), for the expander and the cycle and memo passes.
pub(crate) fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'/'
}
