//! What a run will take, estimated before it takes it: the memory of a
//! simulation or a benchmark pool and the disk space of what they write,
//! from their sizes alone, checked against what the machine has (or a
//! limit given instead).
//!
//! A scenario of 10 million machines or a burst of 10^12 jobs is then
//! refused at once, with the figures, instead of the kernel killing the
//! process once it has taken the machine's memory, or `generate` writing
//! until the disk is full.
//!
//! The figure for each item was measured on release builds: the largest
//! resident memory (or the files' size) of two runs of different sizes,
//! the difference divided by the items added, rounded up. An estimate is
//! good to within a factor of about two: it tells a run that fits from one
//! that needs ten times the machine, not 9 GB from 11 GB.
//!
//! ```
//! use negotiator_sim::footprint::{Footprint, Limit};
//! let mut memory = Footprint::new("memory");
//! memory.add(10_000_000, "machines", 15_000);
//! assert_eq!(memory.bytes(), 150_000_000_000);
//! let limit = Limit::Bytes { bytes: 16 << 30, source: "given by --max-memory".into() };
//! let refused = memory.check(&limit).unwrap_err();
//! assert!(refused.to_string().contains("10000000 machines"), "{refused}");
//! assert!(memory.check(&Limit::Unlimited).is_ok());
//! ```

use std::path::Path;

use crate::simulate::scenario::{Arrival, Scenario};
use crate::synthetic::{Layout, SlotAttrs, Spec};

/// Bytes of memory per item (see the module's documentation for how they
/// were measured).
mod each {
    /// A partitionable slot of a simulated machine (its ad, the startd's
    /// state, the negotiator's copy).
    pub const PARTITIONABLE_SLOT: u64 = 15_000;
    /// A static or dynamic slot of a simulated machine.
    pub const SLOT: u64 = 11_500;
    /// A simulated job from submission to the end of the run.
    pub const JOB: u64 = 320;
    /// A simulated user (submitter, accountant record, arrival source).
    pub const USER: u64 = 5_000;
    /// One row of a recorded table (`users`, `groups`, `cycles`).
    pub const ROW: u64 = 150;
    /// A benchmark slot with the 158 attributes (the pool's and the
    /// cycle's copy).
    pub const BENCH_SLOT_FULL: u64 = 24_500;
    /// A benchmark slot with the 51 attributes.
    pub const BENCH_SLOT_LEAN: u64 = 10_000;
    /// A benchmark slot chained to its host's shared ad.
    pub const BENCH_SLOT_CHAINED: u64 = 4_000;
    /// A benchmark job holding all its attributes.
    pub const BENCH_JOB: u64 = 4_600;
    /// A benchmark job chained to its batch's shared ad.
    pub const BENCH_JOB_CHAINED: u64 = 450;
    /// A benchmark user.
    pub const BENCH_USER: u64 = 1_100;
    /// An accounting group of `bench --groups`.
    pub const BENCH_GROUP: u64 = 2_600;
}

/// Bytes written per item.
mod written {
    /// A slot ad with the 158 attributes in the long format.
    pub const SLOT_FULL: u64 = 4_700;
    /// A slot ad with the 51 attributes.
    pub const SLOT_LEAN: u64 = 1_300;
    /// A job ad.
    pub const JOB: u64 = 2_000;
    /// A user's `condor_userprio -l` lines.
    pub const USER: u64 = 320;
    /// A row of `jobs.csv`.
    pub const JOB_ROW: u64 = 70;
    /// A row of `users.csv`, `groups.csv` or `cycles.csv`.
    pub const ROW: u64 = 70;
}

/// An estimate: items, how many of each, bytes each.
///
/// ```
/// use negotiator_sim::footprint::Footprint;
/// let mut disk = Footprint::new("disk space");
/// disk.add(1_000, "slot ads", 4_700);
/// disk.add(10, "job ads", 2_000);
/// assert_eq!(disk.bytes(), 4_720_000);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Footprint {
    resource: &'static str,
    items: Vec<(u64, String, u64)>,
}

impl Footprint {
    /// An empty estimate of `resource` (`"memory"`, `"disk space"`), the
    /// word its refusal uses.
    pub fn new(resource: &'static str) -> Footprint {
        Footprint { resource, items: Vec::new() }
    }

    /// Adds `count` items of `each` bytes (`what` names them: `"machines"`).
    pub fn add(&mut self, count: u64, what: &str, each: u64) {
        if count > 0 {
            self.items.push((count, what.to_string(), each));
        }
    }

    /// Adds the items of `other` (two runs at once).
    pub fn extend(&mut self, other: Footprint) {
        self.items.extend(other.items);
    }

    /// The whole estimate in bytes (saturating: a size past `u64` is
    /// `u64::MAX`).
    pub fn bytes(&self) -> u64 {
        self.items.iter().fold(0u64, |sum, &(count, _, each)| sum.saturating_add(count.saturating_mul(each)))
    }

    /// `Ok` when the estimate fits in `limit`; otherwise the refusal, with
    /// the figures.
    pub fn check(&self, limit: &Limit) -> Result<(), TooLarge> {
        match limit {
            Limit::Unlimited => Ok(()),
            Limit::Bytes { bytes, source } if self.bytes() > *bytes => Err(TooLarge {
                resource: self.resource,
                needed: self.bytes(),
                limit: *bytes,
                limit_source: source.clone(),
                items: self.describe(),
            }),
            Limit::Bytes { .. } => Ok(()),
        }
    }

    /// The largest items first, those of at least 1% of the whole:
    /// `10000000 machines of about 14.6 KiB: 140 GiB`.
    fn describe(&self) -> String {
        let whole = self.bytes();
        let mut items: Vec<_> =
            self.items.iter().filter(|&&(count, _, each)| count.saturating_mul(each) >= whole / 100).collect();
        items.sort_by_key(|&&(count, _, each)| std::cmp::Reverse(count.saturating_mul(each)));
        items
            .iter()
            .take(3)
            .map(|&&(count, ref what, each)| {
                format!("{count} {what} of about {}: {}", human(each), human(count.saturating_mul(each)))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// How much a run may take.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// No limit: the check always passes.
    Unlimited,
    /// At most `bytes`; `source` says where the figure comes from, as the
    /// refusal ends: "more than the 22 GiB `available on this machine`".
    Bytes {
        /// The limit.
        bytes: u64,
        /// Where it comes from.
        source: String,
    },
}

impl Limit {
    /// The memory this machine has available now (`MemAvailable` of
    /// `/proc/meminfo`); unlimited where that cannot be read.
    pub fn available_memory() -> Limit {
        match available_memory() {
            Some(bytes) => Limit::Bytes { bytes, source: "available on this machine".into() },
            None => Limit::Unlimited,
        }
    }

    /// The free space of the file system `dir` is (or would be made) on;
    /// unlimited where that cannot be read.
    pub fn free_space(dir: &Path) -> Limit {
        match free_space(dir) {
            Some(bytes) => Limit::Bytes { bytes, source: format!("free on the file system of {}", dir.display()) },
            None => Limit::Unlimited,
        }
    }
}

/// An estimate past its limit.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "this would need about {} of {resource} ({items}), more than the {} {limit_source}",
    human(*needed),
    human(*limit)
)]
#[non_exhaustive]
pub struct TooLarge {
    /// `memory` or `disk space`.
    pub resource: &'static str,
    /// The estimate, bytes.
    pub needed: u64,
    /// The limit, bytes.
    pub limit: u64,
    /// Where the limit comes from.
    pub limit_source: String,
    /// The largest items of the estimate, described.
    pub items: String,
}

/// The memory a run of `scenario` takes until `until` seconds (default:
/// its duration). A trace's jobs and a `condor_status` file's slots are
/// not counted: the input-size limit already bounds them.
///
/// ```
/// use negotiator_sim::simulate::scenario::Scenario;
/// let text = "duration = \"1h\"\n[[pool.machines]]\ncount = 10000000\ncpus = 8\nmemory = 16384\n\
///             [[users]]\nname = \"amy\"\narrival = { process = \"burst\", at = 0, jobs = 1000000000000 }\n\
///             runtime = { distribution = \"fixed\", value = \"1h\" }\n";
/// let s = Scenario::from_toml_str(text, "big.toml".as_ref())?;
/// let memory = negotiator_sim::footprint::simulation_memory(&s, None);
/// assert!(memory.bytes() > 300_000_000_000_000, "{memory:?}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn simulation_memory(scenario: &Scenario, until: Option<i64>) -> Footprint {
    let size = SimulationSize::of(scenario, until);
    let mut f = Footprint::new("memory");
    f.add(size.partitionable, "partitionable machines", each::PARTITIONABLE_SLOT);
    f.add(size.static_slots, "static slots", each::SLOT);
    f.add(size.dynamic_slots, "dynamic slots (one per running job, at most)", each::SLOT);
    f.add(size.jobs, "jobs", each::JOB);
    f.add(size.users, "users", each::USER);
    f.add(size.user_rows, "rows of the users table", each::ROW);
    f.add(size.cycles, "cycles (a row each)", each::ROW);
    f
}

/// The disk space `simulate --out` takes, with `formats` files of each
/// table (CSV and Parquet are counted alike: Parquet is smaller).
pub fn simulation_output(scenario: &Scenario, until: Option<i64>, formats: usize) -> Footprint {
    let size = SimulationSize::of(scenario, until);
    let n = formats.max(1) as u64;
    let mut f = Footprint::new("disk space");
    f.add(size.jobs.saturating_mul(n), "rows of jobs", written::JOB_ROW);
    f.add(size.user_rows.saturating_mul(n), "rows of users", written::ROW);
    f.add(size.cycles.saturating_mul(n), "rows of cycles", written::ROW);
    f
}

/// The memory `bench` takes for `spec` with `groups` accounting groups.
///
/// ```
/// use negotiator_sim::synthetic::Spec;
/// let small = negotiator_sim::footprint::bench_memory(&Spec::new(1000, 1000, 10, 10), 0);
/// assert!(small.bytes() < 100_000_000);
/// let huge = negotiator_sim::footprint::bench_memory(&Spec::new(1_000_000_000_000, 1, 1, 1), 0);
/// assert!(huge.bytes() > 1_000_000_000_000_000);
/// ```
pub fn bench_memory(spec: &Spec, groups: usize) -> Footprint {
    let (slot, job) = match (spec.layout, spec.attrs) {
        (Layout::Chained, _) => (each::BENCH_SLOT_CHAINED, each::BENCH_JOB_CHAINED),
        (_, SlotAttrs::Lean) => (each::BENCH_SLOT_LEAN, each::BENCH_JOB),
        _ => (each::BENCH_SLOT_FULL, each::BENCH_JOB),
    };
    let mut f = Footprint::new("memory");
    f.add(spec.slots as u64, "slots", slot);
    f.add(spec.jobs as u64, "jobs", job);
    f.add(spec.users as u64, "users", each::BENCH_USER);
    f.add(groups as u64, "groups", each::BENCH_GROUP);
    f
}

/// The disk space `generate` writes for `spec`.
pub fn generated_files(spec: &Spec) -> Footprint {
    let slot = match spec.attrs {
        SlotAttrs::Lean => written::SLOT_LEAN,
        _ => written::SLOT_FULL,
    };
    let mut f = Footprint::new("disk space");
    f.add(spec.slots as u64, "slot ads", slot);
    f.add(spec.jobs as u64, "job ads", written::JOB);
    f.add(spec.users as u64, "users", written::USER);
    f
}

/// The counts a simulation's estimates are made of.
struct SimulationSize {
    partitionable: u64,
    static_slots: u64,
    dynamic_slots: u64,
    jobs: u64,
    users: u64,
    user_rows: u64,
    cycles: u64,
}

impl SimulationSize {
    fn of(scenario: &Scenario, until: Option<i64>) -> SimulationSize {
        let duration = until.unwrap_or(scenario.duration).max(1) as f64;
        let mut size = SimulationSize {
            partitionable: 0,
            static_slots: 0,
            dynamic_slots: 0,
            jobs: 0,
            users: 0,
            user_rows: 0,
            cycles: 0,
        };
        let mut partitionable_cpus = 0u64;
        for m in &scenario.machines {
            let count = u64::from(m.count);
            if m.partitionable {
                size.partitionable += count;
                partitionable_cpus = partitionable_cpus.saturating_add(count.saturating_mul(u64::from(m.cpus)));
            } else {
                size.static_slots = size.static_slots.saturating_add(count.saturating_mul(u64::from(m.cpus)));
            }
        }
        for u in &scenario.users {
            let submissions = match u.arrival {
                Arrival::Poisson { mean_interval, .. } => duration / mean_interval,
                Arrival::Burst { at, .. } if at > duration => 0.0,
                Arrival::Burst { every: None, .. } => 1.0,
                Arrival::Burst { at, every: Some(every), .. } => 1.0 + ((duration - at) / every).floor(),
            };
            let per_submission = match u.arrival {
                Arrival::Poisson { .. } => f64::from(u.cluster_size),
                Arrival::Burst { jobs, .. } => jobs as f64,
            };
            // (`as` saturates: 1e30 jobs is u64::MAX.)
            let mut jobs = (submissions * per_submission).ceil() as u64;
            if let Some(max) = u.max_jobs {
                jobs = jobs.min(max);
            }
            size.jobs = size.jobs.saturating_add(jobs.saturating_mul(u64::from(u.count)));
            size.users += u64::from(u.count);
        }
        size.dynamic_slots = partitionable_cpus.min(size.jobs);
        let interval = negotiator_interval(scenario);
        size.cycles = (duration / interval as f64).ceil() as u64;
        let recordings = (duration / scenario.record_every.max(interval) as f64).ceil() as u64;
        size.user_rows = recordings.saturating_mul(size.users);
        size
    }
}

/// The scenario's `NEGOTIATOR_INTERVAL` (60 where unset or unreadable:
/// the run itself reports a bad configuration).
fn negotiator_interval(scenario: &Scenario) -> i64 {
    matchmaker::config::Config::parse_str(&scenario.config, "scenario")
        .ok()
        .and_then(|c| c.get_int("NEGOTIATOR_INTERVAL").ok())
        .unwrap_or(60)
        .max(1)
}

/// `MemAvailable` of `/proc/meminfo`, bytes.
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.trim_start_matches("MemAvailable:").trim().trim_end_matches("kB").trim().parse().ok()?;
    kb.checked_mul(1024)
}

/// The space an unprivileged user may still write on the file system of
/// `dir`, or of its nearest existing parent.
fn free_space(dir: &Path) -> Option<u64> {
    let mut at = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    while !at.exists() {
        at = match at.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
    }
    let stat = rustix::fs::statvfs(at).ok()?;
    stat.f_bavail.checked_mul(stat.f_frsize)
}

/// `14.6 KiB`, `1.5 GiB`, `150 TiB` (units of 1024, as `--max-memory`
/// takes them).
fn human(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value >= 100.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(machines: &str, arrival: &str, extra: &str) -> Scenario {
        let text = format!(
            "duration = \"1d\"\n{extra}\n[[pool.machines]]\n{machines}\nmemory = 16384\n\
             [[users]]\nname = \"amy\"\narrival = {arrival}\nruntime = {{ distribution = \"fixed\", value = \"1h\" }}\n"
        );
        match Scenario::from_toml_str(&text, "t.toml".as_ref()) {
            Ok(s) => s,
            Err(e) => panic!("{e}\n{text}"),
        }
    }

    #[test]
    fn bursts_count_each_firing_within_the_run() {
        let once = SimulationSize::of(&scenario("cpus = 4", "{ process = \"burst\", at = 0, jobs = 10 }", ""), None);
        assert_eq!(once.jobs, 10);
        let hourly = SimulationSize::of(
            &scenario("cpus = 4", "{ process = \"burst\", at = 0, jobs = 10, every = \"1h\" }", ""),
            None,
        );
        assert_eq!(hourly.jobs, 250, "at 0h, 1h, ... 24h");
        let late =
            SimulationSize::of(&scenario("cpus = 4", "{ process = \"burst\", at = \"2d\", jobs = 10 }", ""), None);
        assert_eq!(late.jobs, 0);
        let short = SimulationSize::of(
            &scenario("cpus = 4", "{ process = \"burst\", at = 0, jobs = 10, every = \"1h\" }", ""),
            Some(3600),
        );
        assert_eq!(short.jobs, 20);
    }

    #[test]
    fn poisson_arrivals_and_max_jobs() {
        let s = scenario("cpus = 4", "{ process = \"poisson\", mean_interval = \"1m\" }", "");
        assert_eq!(SimulationSize::of(&s, None).jobs, 1440);
        let mut capped = s.clone();
        capped.users[0].max_jobs = Some(100);
        capped.users[0].count = 7;
        let size = SimulationSize::of(&capped, None);
        assert_eq!((size.jobs, size.users), (700, 7));
    }

    #[test]
    fn slots_static_partitionable_and_dynamic() {
        let p = SimulationSize::of(
            &scenario("count = 10\ncpus = 8", "{ process = \"burst\", at = 0, jobs = 50 }", ""),
            None,
        );
        assert_eq!((p.partitionable, p.static_slots, p.dynamic_slots), (10, 0, 50));
        let p = SimulationSize::of(
            &scenario("count = 10\ncpus = 8", "{ process = \"burst\", at = 0, jobs = 500 }", ""),
            None,
        );
        assert_eq!(p.dynamic_slots, 80, "no more dynamic slots than CPUs");
        let s = SimulationSize::of(
            &scenario("count = 10\ncpus = 8\npartitionable = false", "{ process = \"burst\", at = 0, jobs = 5 }", ""),
            None,
        );
        assert_eq!((s.partitionable, s.static_slots), (0, 80));
    }

    #[test]
    fn recordings_follow_the_interval_and_record_every() {
        let arrival = "{ process = \"burst\", at = 0, jobs = 1 }";
        let every_cycle =
            SimulationSize::of(&scenario("cpus = 1", arrival, "config = \"NEGOTIATOR_INTERVAL = 300\""), None);
        assert_eq!((every_cycle.cycles, every_cycle.user_rows), (288, 288));
        let hourly = SimulationSize::of(&scenario("cpus = 1", arrival, "record_every = \"1h\""), None);
        assert_eq!((hourly.cycles, hourly.user_rows), (1440, 24));
    }

    #[test]
    fn sizes_past_u64_saturate() {
        let s = scenario(
            "count = 4000000000\ncpus = 4000000000",
            "{ process = \"burst\", at = 0, jobs = 9000000000000000000 }",
            "",
        );
        let memory = simulation_memory(&s, None);
        assert_eq!(memory.bytes(), u64::MAX);
        let refused = memory.check(&Limit::Bytes { bytes: 1 << 40, source: "set by a test".into() }).unwrap_err();
        assert_eq!(refused.needed, u64::MAX);
        assert!(refused.to_string().contains("more than the 1.0 TiB set by a test"), "{refused}");
    }

    #[test]
    fn the_refusal_names_the_largest_items_first() {
        let mut f = Footprint::new("memory");
        f.add(3, "users", 5_000);
        f.add(10_000_000, "machines", 15_000);
        f.add(0, "nothing", 1);
        f.add(1, "job", 2 << 30);
        let e = f.check(&Limit::Bytes { bytes: 1 << 10, source: "given by --max-memory".into() }).unwrap_err();
        assert_eq!(
            e.to_string(),
            "this would need about 142 GiB of memory (10000000 machines of about 14.6 KiB: 140 GiB; \
             1 job of about 2.0 GiB: 2.0 GiB), more than the 1.0 KiB given by --max-memory"
        );
    }

    #[test]
    fn the_machine_reports_memory_and_space() {
        assert!(matches!(Limit::available_memory(), Limit::Bytes { bytes, .. } if bytes > 0));
        let dir = std::env::temp_dir().join("footprint-not-made-yet").join("deeper");
        assert!(matches!(Limit::free_space(&dir), Limit::Bytes { .. }));
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(999), "999 B");
        assert_eq!(human(15_000), "14.6 KiB");
        assert_eq!(human(150_000_000_000), "140 GiB");
        assert_eq!(human(u64::MAX), "16.0 EiB");
    }
}
