//! The scenario file: a pool, its workload, the negotiator's
//! configuration, a seed and a duration, in TOML. The format is documented
//! for users in `docs/simulation.md`.
//!
//! ```
//! use negotiator_sim::simulate::scenario::Scenario;
//!
//! let scenario = Scenario::from_toml_str(r#"
//!     seed = 7
//!     duration = "2d"
//!     config = "NEGOTIATOR_INTERVAL = 120\nPRIORITY_HALFLIFE = 3600"
//!
//!     [[pool.machines]]
//!     count = 10
//!     cpus = 8
//!     memory = 16384
//!
//!     [[users]]
//!     name = "alice"
//!     arrival = { process = "poisson", mean_interval = "5m" }
//!     runtime = { distribution = "exponential", mean = "2h" }
//! "#, "example.toml".as_ref())?;
//! assert_eq!(scenario.duration, 2 * 86400);
//! assert_eq!(scenario.users[0].runtime.mean(), 7200.0);
//! # Ok::<(), negotiator_sim::simulate::scenario::ScenarioError>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::owner::{OwnerModel, Sessions};
use super::random::Distribution;

/// Why a scenario could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A file is over the process's
    /// [`FileLimits`](classad::bounded_file::FileLimits), has too long a
    /// line or is not UTF-8.
    #[error(transparent)]
    File(classad::bounded_file::FileError),
    /// The TOML is malformed or has unknown or mistyped keys (the message
    /// starts with the line and column and quotes a few hundred bytes of
    /// the line at most).
    #[error("{path}:{message}")]
    Toml {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A value is out of range or inconsistent.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// The text of a file the scenario names, under the process's
/// [`FileLimits`](classad::bounded_file::FileLimits).
pub fn read_text(path: &Path) -> Result<String, ScenarioError> {
    use classad::bounded_file::{self, FileError};
    bounded_file::read_to_string(path).map_err(|e| match e {
        FileError::Io { path, source } => ScenarioError::Io { path, source },
        other => ScenarioError::File(other),
    })
}

/// `line:column: message` of a TOML error, and the part of the line it is
/// on (toml's own message quotes the whole line, however long).
fn toml_message(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim_end();
    let Some(span) = error.span() else {
        return format!(" {}", classad::excerpt::quote(message));
    };
    let mut at = span.start.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = text[..at].matches('\n').count() + 1;
    let column = text[line_start..at].chars().count() + 1;
    let shown = classad::excerpt::around(&text[line_start..line_end], at - line_start);
    format!("{line}:{column}: {}\n  | {shown}", classad::excerpt::quote(message))
}

/// A duration in seconds: an integer, or text with a unit (`90s`, `30m`,
/// `1.5h`, `7d`, `2w`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(try_from = "DurationText")]
pub struct Duration(pub f64);

#[derive(Deserialize)]
#[serde(untagged)]
enum DurationText {
    Int(i64),
    Float(f64),
    Text(String),
}

impl TryFrom<DurationText> for Duration {
    type Error = String;
    fn try_from(d: DurationText) -> Result<Duration, String> {
        let seconds = match d {
            DurationText::Int(i) => i as f64,
            DurationText::Float(f) => f,
            DurationText::Text(t) => parse_duration(&t)?,
        };
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(format!("a duration must be a non-negative number of seconds, not {seconds}"));
        }
        Ok(Duration(seconds))
    }
}

/// Seconds in a duration text: a number and an optional unit (`s`, `m`,
/// `h`, `d`, `w`; seconds without one).
///
/// ```
/// use negotiator_sim::simulate::scenario::parse_duration;
/// assert_eq!(parse_duration("1.5h"), Ok(5400.0));
/// assert_eq!(parse_duration("7d"), Ok(604800.0));
/// assert_eq!(parse_duration("45"), Ok(45.0));
/// assert!(parse_duration("soon").is_err());
/// ```
pub fn parse_duration(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&t[..i], t[i..].trim()),
        None => (t, "s"),
    };
    let scale = match unit {
        "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
        "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
        "h" | "hour" | "hours" => 3600.0,
        "d" | "day" | "days" => 86400.0,
        "w" | "week" | "weeks" => 7.0 * 86400.0,
        "y" | "year" | "years" => 365.0 * 86400.0,
        _ => return Err(format!("`{text}`: unknown unit `{unit}` (use s, m, h, d, w or y)")),
    };
    let value: f64 =
        number.trim().parse().map_err(|_| format!("`{text}` is not a duration (such as 90s, 30m, 2h, 7d)"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("`{text}` is not a non-negative duration"));
    }
    Ok(value * scale)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    seed: Option<u64>,
    duration: Option<Duration>,
    start_time: Option<i64>,
    claim_delay: Option<Duration>,
    update_delay: Option<Duration>,
    record_every: Option<Duration>,
    first_cycle: Option<Duration>,
    config: Option<String>,
    config_file: Option<PathBuf>,
    #[serde(default)]
    pool: PoolFile,
    #[serde(default)]
    users: Vec<UserFile>,
    trace: Option<TraceFile>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct PoolFile {
    #[serde(default)]
    machines: Vec<MachineFile>,
    condor_status: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MachineFile {
    name: Option<String>,
    count: Option<u32>,
    cpus: u32,
    memory: i64,
    disk: Option<i64>,
    partitionable: Option<bool>,
    startd_config: Option<String>,
    #[serde(default)]
    attributes: BTreeMap<String, toml::Value>,
    owner: Option<OwnerFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OwnerFile {
    sessions: SessionsFile,
    length: DistributionFile,
    load: Option<f64>,
}

#[derive(Deserialize)]
#[serde(tag = "process", rename_all = "lowercase", deny_unknown_fields)]
enum SessionsFile {
    Poisson { mean_interval: Duration, diurnal_amplitude: Option<f64>, peak: Option<Duration> },
    Periodic { at: Duration, every: Option<Duration> },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UserFile {
    name: String,
    count: Option<u32>,
    domain: Option<String>,
    group: Option<String>,
    priority_factor: Option<f64>,
    arrival: ArrivalFile,
    runtime: DistributionFile,
    cluster_size: Option<u32>,
    request_cpus: Option<u32>,
    request_memory: Option<i64>,
    request_disk: Option<i64>,
    requirements: Option<String>,
    rank: Option<String>,
    max_jobs: Option<u64>,
    concurrency_limits: Option<String>,
    vacate_time: Option<Duration>,
}

#[derive(Deserialize)]
#[serde(tag = "process", rename_all = "lowercase", deny_unknown_fields)]
enum ArrivalFile {
    Poisson { mean_interval: Duration, diurnal_amplitude: Option<f64>, peak: Option<Duration> },
    Burst { at: Duration, jobs: u64, every: Option<Duration> },
}

#[derive(Deserialize)]
#[serde(tag = "distribution", rename_all = "lowercase", deny_unknown_fields)]
enum DistributionFile {
    Fixed { value: Duration },
    Uniform { min: Duration, max: Duration },
    Exponential { mean: Duration },
    Lognormal { median: Duration, sigma: f64 },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TraceFile {
    file: PathBuf,
    format: Option<String>,
    start: Option<i64>,
    domain: Option<String>,
    max_jobs: Option<u64>,
    keep_requirements: Option<bool>,
}

/// A machine type of the pool: `count` machines alike.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineType {
    /// Host name prefix (`node` gives `node0001`, `node0002`, ...).
    pub name: String,
    /// How many machines.
    pub count: u32,
    /// CPUs of each.
    pub cpus: u32,
    /// Memory (MB).
    pub memory: i64,
    /// Disk (KB).
    pub disk: i64,
    /// One partitionable slot (true, a 23.x startd's default) or one
    /// static slot per CPU.
    pub partitionable: bool,
    /// Startd configuration of these machines (`SLOT_TYPE_<N>`, `START`,
    /// `RANK`...), after the scenario's `config`.
    pub startd_config: String,
    /// Attributes published in every slot ad, as ClassAd expressions.
    pub attributes: Vec<(String, String)>,
    /// The machines' owners (a desktop pool), if any: they drive
    /// `KeyboardIdle`, `ConsoleIdle` and `LoadAvg`.
    pub owner: Option<OwnerModel>,
}

/// How a user's jobs arrive.
#[derive(Debug, Clone, PartialEq)]
pub enum Arrival {
    /// Submissions at exponential intervals of mean `mean_interval`
    /// seconds; with a diurnal amplitude `a`, the rate follows
    /// `1 + a·cos(2π(t − peak)/1 day)`.
    Poisson {
        /// Mean seconds between submissions.
        mean_interval: f64,
        /// Between 0 (steady) and 1 (no submission at the trough).
        diurnal_amplitude: f64,
        /// Seconds into the day of the highest rate.
        peak: f64,
    },
    /// `jobs` jobs at once at `at`, and again every `every` seconds.
    Burst {
        /// Seconds from the start.
        at: f64,
        /// Jobs per burst.
        jobs: u64,
        /// Seconds between bursts (one burst without).
        every: Option<f64>,
    },
}

/// A user (or `count` users alike) and its workload.
#[derive(Debug, Clone, PartialEq)]
pub struct UserType {
    /// The user's name (`alice`), or the prefix of `count` names (`user`
    /// gives `user001`, `user002`, ...).
    pub name: String,
    /// How many users.
    pub count: u32,
    /// The domain of `User` (`alice@sim`).
    pub domain: String,
    /// Accounting group (`group_physics`), if any.
    pub group: Option<String>,
    /// Priority factor set at the start, if any.
    pub priority_factor: Option<f64>,
    /// How submissions arrive.
    pub arrival: Arrival,
    /// Jobs per submission (one cluster).
    pub cluster_size: u32,
    /// Run time of each job, seconds.
    pub runtime: Distribution,
    /// `RequestCpus`.
    pub request_cpus: u32,
    /// `RequestMemory` (MB).
    pub request_memory: i64,
    /// `RequestDisk` (KB).
    pub request_disk: i64,
    /// The job's `Requirements` (default: the resources it requests).
    pub requirements: Option<String>,
    /// The job's `Rank`.
    pub rank: Option<String>,
    /// At most this many jobs per user.
    pub max_jobs: Option<u64>,
    /// The jobs' `ConcurrencyLimits`, if any.
    pub concurrency_limits: Option<String>,
    /// Seconds a job takes to exit when the startd asks it to (a soft
    /// kill); 0: at once.
    pub vacate_time: i64,
}

/// Which reader a trace needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    /// Decided from the file's first bytes.
    Auto,
    /// `condor_history -json` or `-long` output.
    CondorHistory,
    /// The Standard Workload Format of the Parallel Workloads Archive.
    Swf,
}

/// A recorded workload to replay.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The file.
    pub file: PathBuf,
    /// Its format.
    pub format: TraceFormat,
    /// The epoch time the simulation starts at (default: the first
    /// submission).
    pub start: Option<i64>,
    /// Domain of users named without one.
    pub domain: String,
    /// Read at most this many jobs.
    pub max_jobs: Option<u64>,
    /// Keep each job's own `Requirements` (a history's), instead of
    /// requiring only the resources it requests.
    pub keep_requirements: bool,
}

/// A whole scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Where it was read from (relative files are found from there).
    pub path: PathBuf,
    /// The seed (`--seed` overrides it).
    pub seed: u64,
    /// Seconds to simulate.
    pub duration: i64,
    /// The epoch time of the start (what policy expressions see as the
    /// time); default 1,700,000,000.
    pub start_time: i64,
    /// Seconds from a match until its job starts.
    pub claim_delay: i64,
    /// Seconds from a claim given back (its job done, the schedd keeping
    /// it no longer) until the collector has the slot's new ad: cycles
    /// before then still see the slot claimed, and the accountant charges
    /// it (default 0).
    pub update_delay: i64,
    /// Seconds from the start to the first negotiation cycle (then one
    /// every `NEGOTIATOR_INTERVAL`).
    pub first_cycle: i64,
    /// Seconds between rows of the `users` and `groups` tables (0: every
    /// cycle).
    pub record_every: i64,
    /// HTCondor configuration text for the negotiator, the accountant and
    /// the startds (the file's contents, then the inline text).
    pub config: String,
    /// Machine types.
    pub machines: Vec<MachineType>,
    /// Slot ads to add to the pool (`condor_status -long` or `-json`).
    pub condor_status: Option<PathBuf>,
    /// Users and their workloads.
    pub users: Vec<UserType>,
    /// A recorded workload.
    pub trace: Option<Trace>,
}

impl Scenario {
    /// Reads a scenario file.
    pub fn read(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = read_text(path)?;
        Scenario::from_toml_str(&text, path)
    }

    /// A scenario from its text; `path` names it in errors and anchors its
    /// relative file names.
    pub fn from_toml_str(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
        let file: File = toml::from_str(text)
            .map_err(|e| ScenarioError::Toml { path: path.to_path_buf(), message: toml_message(text, &e) })?;
        let invalid = |message: String| ScenarioError::Invalid { path: path.to_path_buf(), message };
        let base = path.parent().unwrap_or(Path::new(""));
        let relative = |p: PathBuf| if p.is_absolute() { p } else { base.join(p) };
        let mut config = String::new();
        if let Some(file) = file.config_file {
            let file = relative(file);
            config = read_text(&file)?;
            config.push('\n');
        }
        if let Some(text) = &file.config {
            config.push_str(text);
            config.push('\n');
        }
        let duration = file.duration.map_or(7.0 * 86400.0, |d| d.0).round() as i64;
        if duration <= 0 {
            return Err(invalid("duration must be positive".into()));
        }
        let mut machines = Vec::new();
        for (k, m) in file.pool.machines.into_iter().enumerate() {
            let at = format!("pool.machines[{k}]");
            if m.cpus == 0 || m.memory <= 0 {
                return Err(invalid(format!("{at}: cpus and memory must be positive")));
            }
            if m.disk.is_some_and(|d| d <= 0) {
                return Err(invalid(format!("{at}: disk must be positive")));
            }
            if m.count == Some(0) {
                return Err(invalid(format!("{at}: count must be at least 1 (leave the machine type out instead)")));
            }
            let attributes = m
                .attributes
                .into_iter()
                .map(|(name, value)| {
                    Ok((
                        name.clone(),
                        toml_to_classad(&value).map_err(|e| invalid(format!("{at}.attributes.{name}: {e}")))?,
                    ))
                })
                .collect::<Result<Vec<_>, ScenarioError>>()?;
            let owner = match m.owner {
                None => None,
                Some(o) => Some(owner_model(o).map_err(|e| invalid(format!("{at}.owner: {e}")))?),
            };
            machines.push(MachineType {
                name: m.name.unwrap_or_else(|| "node".to_string()),
                count: m.count.unwrap_or(1),
                cpus: m.cpus,
                memory: m.memory,
                disk: m.disk.unwrap_or(100_000_000),
                partitionable: m.partitionable.unwrap_or(true),
                startd_config: m.startd_config.unwrap_or_default(),
                attributes,
                owner,
            });
        }
        let mut users = Vec::new();
        for (k, u) in file.users.into_iter().enumerate() {
            let at = format!("users[{k}] ({})", u.name);
            if u.name.is_empty() || u.name.contains(['@', ' ', '.']) {
                return Err(invalid(format!("{at}: a user name is a word without `@`, `.` or spaces")));
            }
            let arrival = match u.arrival {
                ArrivalFile::Poisson { mean_interval, diurnal_amplitude, peak } => {
                    if mean_interval.0 <= 0.0 {
                        return Err(invalid(format!("{at}: arrival.mean_interval must be positive")));
                    }
                    let a = diurnal_amplitude.unwrap_or(0.0);
                    if !(0.0..=1.0).contains(&a) {
                        return Err(invalid(format!("{at}: arrival.diurnal_amplitude must be between 0 and 1")));
                    }
                    Arrival::Poisson {
                        mean_interval: mean_interval.0,
                        diurnal_amplitude: a,
                        peak: peak.map_or(14.0 * 3600.0, |p| p.0),
                    }
                }
                ArrivalFile::Burst { at: when, jobs, every } => {
                    if jobs == 0 {
                        return Err(invalid(format!("{at}: arrival.jobs must be at least 1")));
                    }
                    if every.is_some_and(|e| e.0 < 1.0) {
                        return Err(invalid(format!("{at}: arrival.every must be at least 1s")));
                    }
                    Arrival::Burst { at: when.0, jobs, every: every.map(|e| e.0) }
                }
            };
            let runtime = distribution(u.runtime).map_err(|e| invalid(format!("{at}: runtime.{e}")))?;
            for (field, value) in [("count", u.count), ("cluster_size", u.cluster_size)] {
                if value == Some(0) {
                    return Err(invalid(format!("{at}: {field} must be at least 1")));
                }
            }
            for (field, value) in [("request_memory", u.request_memory), ("request_disk", u.request_disk)] {
                if value.is_some_and(|v| v < 0) {
                    return Err(invalid(format!("{at}: {field} must not be negative")));
                }
            }
            if let Some(limits) = &u.concurrency_limits {
                if matchmaker::concurrency::items(limits).is_empty() {
                    return Err(invalid(format!(
                        "{at}: concurrency_limits: `{limits}` names no limit (a list of name or name:units)"
                    )));
                }
            }
            for (name, text) in [("requirements", &u.requirements), ("rank", &u.rank)] {
                if let Some(text) = text {
                    if let Err(e) = classad::parse_expr(text) {
                        return Err(invalid(format!("{at}: {name}: {e}")));
                    }
                }
            }
            if let Some(g) = &u.group {
                if g.is_empty() || g.contains(['@', ' ']) {
                    return Err(invalid(format!("{at}: `{g}` is not a group name")));
                }
            }
            if u.priority_factor.is_some_and(|f| f.is_nan() || f < 1.0) {
                return Err(invalid(format!("{at}: priority_factor must be at least 1")));
            }
            users.push(UserType {
                name: u.name,
                count: u.count.unwrap_or(1),
                domain: u.domain.unwrap_or_else(|| "sim".to_string()),
                group: u.group,
                priority_factor: u.priority_factor,
                arrival,
                cluster_size: u.cluster_size.unwrap_or(1),
                runtime,
                request_cpus: u.request_cpus.unwrap_or(1),
                request_memory: u.request_memory.unwrap_or(1024),
                request_disk: u.request_disk.unwrap_or(1024),
                requirements: u.requirements,
                rank: u.rank,
                max_jobs: u.max_jobs,
                concurrency_limits: u.concurrency_limits,
                vacate_time: u.vacate_time.map_or(0.0, |d| d.0).round() as i64,
            });
        }
        let trace = match file.trace {
            None => None,
            Some(t) => {
                let format = match t.format.as_deref() {
                    None | Some("auto") => TraceFormat::Auto,
                    Some("condor_history") | Some("history") => TraceFormat::CondorHistory,
                    Some("swf") => TraceFormat::Swf,
                    Some(other) => {
                        return Err(invalid(format!("trace.format: `{other}` is not one of auto, condor_history, swf")))
                    }
                };
                Some(Trace {
                    file: relative(t.file),
                    format,
                    start: t.start,
                    domain: t.domain.unwrap_or_else(|| "sim".to_string()),
                    max_jobs: t.max_jobs,
                    keep_requirements: t.keep_requirements.unwrap_or(false),
                })
            }
        };
        if let Some(name) = first_repeated(machines.iter().map(|m| m.name.as_str())) {
            return Err(invalid(format!(
                "pool.machines: two machine types are named `{name}` (their machines would have the same names); \
                 give each a name of its own"
            )));
        }
        if let Some(name) = first_repeated(users.iter().map(|u| u.name.as_str())) {
            return Err(invalid(format!("users: two users are named `{name}`; give each a name of its own")));
        }
        if trace.as_ref().is_some_and(|t| t.max_jobs == Some(0)) {
            return Err(invalid("trace.max_jobs must be at least 1".into()));
        }
        let condor_status = file.pool.condor_status.map(relative);
        if machines.is_empty() && condor_status.is_none() {
            return Err(invalid("the pool has no machines: give [[pool.machines]] or pool.condor_status".into()));
        }
        if users.is_empty() && trace.is_none() {
            return Err(invalid("no workload: give [[users]] or a [trace]".into()));
        }
        Ok(Scenario {
            path: path.to_path_buf(),
            seed: file.seed.unwrap_or(0),
            duration,
            start_time: file.start_time.unwrap_or(1_700_000_000),
            claim_delay: file.claim_delay.map_or(0.0, |d| d.0).round() as i64,
            update_delay: file.update_delay.map_or(0.0, |d| d.0).round() as i64,
            first_cycle: file.first_cycle.map_or(0.0, |d| d.0).round() as i64,
            record_every: file.record_every.map_or(0.0, |d| d.0).round() as i64,
            config,
            machines,
            condor_status,
            users,
            trace,
        })
    }
}

/// The first name given twice.
fn first_repeated<'a>(names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut seen = std::collections::HashSet::new();
    names.into_iter().find(|&n| !seen.insert(n))
}

/// A distribution from the file; errors name the field (`max is below
/// min`). A distribution of durations that are all zero is refused: a job
/// or a session takes some time.
fn distribution(d: DistributionFile) -> Result<Distribution, String> {
    let (field, largest) = match &d {
        DistributionFile::Fixed { value } => ("value", value.0),
        DistributionFile::Uniform { max, .. } => ("max", max.0),
        DistributionFile::Exponential { mean } => ("mean", mean.0),
        DistributionFile::Lognormal { median, .. } => ("median", median.0),
    };
    if largest == 0.0 {
        return Err(format!("{field} must be positive (every duration would be 0)"));
    }
    Ok(match d {
        DistributionFile::Fixed { value } => Distribution::Fixed { value: value.0 },
        DistributionFile::Uniform { min, max } => {
            if max.0 < min.0 {
                return Err("max is below min".into());
            }
            Distribution::Uniform { min: min.0, max: max.0 }
        }
        DistributionFile::Exponential { mean } => Distribution::Exponential { mean: mean.0 },
        DistributionFile::Lognormal { median, sigma } => {
            if !(sigma.is_finite() && sigma >= 0.0) {
                return Err("sigma must be a non-negative number".into());
            }
            Distribution::LogNormal { median: median.0, sigma }
        }
    })
}

/// The owner model of a machine type.
fn owner_model(o: OwnerFile) -> Result<OwnerModel, String> {
    let sessions = match o.sessions {
        SessionsFile::Poisson { mean_interval, diurnal_amplitude, peak } => {
            if mean_interval.0 <= 0.0 {
                return Err("sessions.mean_interval must be positive".into());
            }
            let a = diurnal_amplitude.unwrap_or(0.0);
            if !(0.0..=1.0).contains(&a) {
                return Err("sessions.diurnal_amplitude must be between 0 and 1".into());
            }
            Sessions::Poisson {
                mean_interval: mean_interval.0,
                diurnal_amplitude: a,
                peak: peak.map_or(14.0 * 3600.0, |p| p.0),
            }
        }
        SessionsFile::Periodic { at, every } => {
            if every.is_some_and(|e| e.0 < 1.0) {
                return Err("sessions.every must be at least 1s".into());
            }
            Sessions::Periodic { at: at.0, every: every.map(|e| e.0) }
        }
    };
    let length = distribution(o.length).map_err(|e| format!("length.{e}"))?;
    let load = o.load.unwrap_or(1.0);
    if !(load.is_finite() && load >= 0.0) {
        return Err("load must be a non-negative number".into());
    }
    Ok(OwnerModel { sessions, length, load })
}

/// A TOML value as ClassAd text: strings are quoted, a string of the form
/// `expr: ...` is an expression.
fn toml_to_classad(value: &toml::Value) -> Result<String, String> {
    Ok(match value {
        toml::Value::String(s) => match s.strip_prefix("expr:") {
            Some(expr) => {
                classad::parse_expr(expr.trim()).map_err(|e| e.to_string())?;
                expr.trim().to_string()
            }
            None => classad::Expr::from(s.as_str()).to_string(),
        },
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => format!("{f:?}"),
        toml::Value::Boolean(b) => b.to_string(),
        other => return Err(format!("{} is not a string, number or boolean", other.type_str())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Scenario, ScenarioError> {
        Scenario::from_toml_str(text, Path::new("s.toml"))
    }

    const MINIMAL: &str = r#"
        [[pool.machines]]
        cpus = 4
        memory = 8192
        [[users]]
        name = "amy"
        arrival = { process = "poisson", mean_interval = 60 }
        runtime = { distribution = "fixed", value = "10m" }
    "#;

    #[test]
    fn defaults() {
        let s = read(MINIMAL).expect("reads");
        assert_eq!((s.seed, s.duration, s.claim_delay), (0, 7 * 86400, 0));
        assert_eq!(s.machines[0].count, 1);
        assert!(s.machines[0].partitionable);
        assert_eq!(s.users[0].runtime, Distribution::Fixed { value: 600.0 });
        assert_eq!(s.users[0].domain, "sim");
    }

    #[test]
    fn a_toml_error_on_a_long_line_quotes_a_part_of_it() {
        let long = format!("config = \"{}\" junk {}\n", "x".repeat(1 << 20), "y".repeat(1 << 20));
        let e = read(&format!("{MINIMAL}{long}")).expect_err("malformed");
        let text = e.to_string();
        assert!(text.len() < 800, "{} bytes", text.len());
        let line = MINIMAL.matches('\n').count() + 1;
        assert!(text.starts_with(&format!("s.toml:{line}:10485")), "{text}");
        assert!(text.contains("junk"), "{text}");
        assert!(text.contains("..."), "{text}");
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_place() {
        let e = read(&format!("colour = 3\n{MINIMAL}")).expect_err("unknown key");
        let text = e.to_string();
        assert!(text.starts_with("s.toml:1:1: ") && text.contains("colour"), "{text}");
        let e = read(&MINIMAL.replace("\"10m\"", "\"10 parsecs\"")).expect_err("bad unit");
        assert!(e.to_string().contains("unknown unit"), "{e}");
        let e = read(&MINIMAL.replace("\"amy\"", "\"a@b\"")).expect_err("bad name");
        assert!(e.to_string().contains("users[0]"), "{e}");
        let e = read("[[users]]\nname = \"x\"\narrival = { process = \"poisson\", mean_interval = 1 }\nruntime = { distribution = \"fixed\", value = 1 }\n").expect_err("no pool");
        assert!(e.to_string().contains("no machines"), "{e}");
    }

    /// Values that would be taken without a word for something else (a
    /// count of 0, a cluster of 0 jobs read as 1, negative requests, zero
    /// run times, two types with one name) are refused, naming the field.
    #[test]
    fn values_that_mean_nothing_are_refused() {
        let two_users = format!(
            "{MINIMAL}[[users]]\nname = \"amy\"\narrival = {{ process = \"poisson\", mean_interval = 60 }}\nruntime = {{ distribution = \"fixed\", value = 5 }}\n"
        );
        let two_machines = MINIMAL.replace("[[users]]", "[[pool.machines]]\ncpus = 2\nmemory = 1024\n[[users]]");
        let cases: Vec<(String, &str)> = vec![
            (MINIMAL.replace("cpus = 4", "cpus = 4\ncount = 0"), "pool.machines[0]: count must be at least 1"),
            (MINIMAL.replace("cpus = 4", "cpus = 4\ndisk = 0"), "pool.machines[0]: disk must be positive"),
            (
                MINIMAL.replace("name = \"amy\"", "name = \"amy\"\ncount = 0"),
                "users[0] (amy): count must be at least 1",
            ),
            (MINIMAL.replace("name = \"amy\"", "name = \"amy\"\ncluster_size = 0"), "cluster_size must be at least 1"),
            (
                MINIMAL.replace("name = \"amy\"", "name = \"amy\"\nrequest_memory = -5"),
                "request_memory must not be negative",
            ),
            (
                MINIMAL.replace("name = \"amy\"", "name = \"amy\"\nrequest_disk = -1"),
                "request_disk must not be negative",
            ),
            (MINIMAL.replace("value = \"10m\"", "value = 0"), "runtime.value must be positive"),
            (
                MINIMAL.replace(
                    "{ distribution = \"fixed\", value = \"10m\" }",
                    "{ distribution = \"exponential\", mean = \"0s\" }",
                ),
                "runtime.mean must be positive",
            ),
            (
                MINIMAL.replace(
                    "{ process = \"poisson\", mean_interval = 60 }",
                    "{ process = \"burst\", at = 0, jobs = 0 }",
                ),
                "arrival.jobs must be at least 1",
            ),
            (two_users, "two users are named `amy`"),
            (two_machines, "two machine types are named `node`"),
        ];
        for (text, says) in cases {
            let e = read(&text).expect_err(says);
            assert!(e.to_string().contains(says), "{says}: {e}");
        }
    }

    #[test]
    fn owners_limits_and_vacate_times() {
        let s = read(&MINIMAL.replace(
            "memory = 8192",
            "memory = 8192\nowner = { sessions = { process = \"periodic\", at = \"9h\", every = \"1d\" }, length = { distribution = \"fixed\", value = \"1h\" }, load = 0.5 }",
        ).replace("value = \"10m\" }", "value = \"10m\" }\nconcurrency_limits = \"matlab:2\"\nvacate_time = \"90s\""))
        .expect("reads");
        assert_eq!(
            s.machines[0].owner,
            Some(OwnerModel {
                sessions: Sessions::Periodic { at: 32400.0, every: Some(86400.0) },
                length: Distribution::Fixed { value: 3600.0 },
                load: 0.5
            })
        );
        assert_eq!((s.users[0].concurrency_limits.as_deref(), s.users[0].vacate_time), (Some("matlab:2"), 90));
        assert_eq!(
            (
                read(MINIMAL).expect("reads").machines[0].owner.clone(),
                read(MINIMAL).expect("reads").users[0].vacate_time
            ),
            (None, 0)
        );
        let bad = |owner: &str| {
            read(&MINIMAL.replace("memory = 8192", &format!("memory = 8192\nowner = {owner}")))
                .expect_err("a bad owner")
                .to_string()
        };
        let e = bad("{ sessions = { process = \"poisson\", mean_interval = 0 }, length = { distribution = \"fixed\", value = 1 } }");
        assert!(e.contains("pool.machines[0].owner: sessions.mean_interval"), "{e}");
        let e = bad("{ sessions = { process = \"periodic\", at = 0 }, length = { distribution = \"uniform\", min = 9, max = 1 } }");
        assert!(e.contains("length.max is below min"), "{e}");
        let e = bad("{ sessions = { process = \"periodic\", at = 0 }, length = { distribution = \"fixed\", value = 1 }, load = -1 }");
        assert!(e.contains("load must be"), "{e}");
        let e = bad("{ sessions = { process = \"weekly\" }, length = { distribution = \"fixed\", value = 1 } }");
        assert!(e.contains("weekly"), "{e}");
        let e = read(&MINIMAL.replace("value = \"10m\" }", "value = \"10m\" }\nconcurrency_limits = \",,\""))
            .expect_err("no limit");
        assert!(e.to_string().contains("users[0] (amy): concurrency_limits"), "{e}");
    }

    #[test]
    fn attributes_become_classad_text() {
        let s = read(&MINIMAL.replace(
            "memory = 8192",
            "memory = 8192\nattributes = { Arch = \"X86_64\", HasGPU = false, Speed = 1.5, Big = \"expr: Memory > 4096\" }",
        ))
        .expect("reads");
        let attrs: BTreeMap<String, String> = s.machines[0].attributes.iter().cloned().collect();
        assert_eq!(attrs["Arch"], "\"X86_64\"");
        assert_eq!(attrs["HasGPU"], "false");
        assert_eq!(attrs["Speed"], "1.5");
        assert_eq!(attrs["Big"], "Memory > 4096");
    }
}
