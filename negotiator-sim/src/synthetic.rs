//! Synthetic pools: the slots, jobs and users of the project's HTCondor
//! negotiation benchmark, built in memory.
//!
//! The benchmark that times HTCondor 23.9.6's negotiator (a shell script
//! kept with the project's anchor tools, `negotiation-bench.sh`) generates
//! static-slot machine ads with a small Python program, advertises them to a
//! collector, submits idle vanilla jobs with `condor_submit` as users
//! `bench01`, `bench02`, ... and sets those users' priority factors. This
//! module builds the same pool as [`ClassAd`]s, so that a negotiation cycle
//! run here can be timed on exactly the pool HTCondor's negotiator was timed
//! on:
//!
//! * **slots**: the script's machine ads, attribute for attribute and in its
//!   order: 8 static slots per fake host, 8 host types (1 to 8 cores, 2 to
//!   32 GB), 5% `aarch64` hosts, 3 operating systems, 2% of hosts without
//!   file transfer, `START` policies (70% `true`, 20% resource checks, 10%
//!   desktop-style), 4% of hosts with a startd `Rank` preferring the first
//!   user. [`SlotAttrs::Full`] gives the 158-attribute (153 on `aarch64`)
//!   ads, [`SlotAttrs::Lean`] the script's 51-attribute subset. The only
//!   input besides the counts is the base time (the script's
//!   `int(time.time()) - 3600`), [`Spec::base_time`].
//! * **jobs**: the ads the schedd holds after `condor_submit` of the
//!   script's submit files (one file, so one cluster, per user), as
//!   `condor_q -l` shows them: `Requirements` as `condor_submit` builds it,
//!   `Rank`, `RequestCpus`/`RequestMemory`/`RequestDisk`, `AnchorClass`,
//!   `Owner`, `User`, `ClusterId`/`ProcId` and the rest. Job classes are
//!   spread over users as the script spreads them; each class has its own
//!   `RequestDisk`, so each is one autocluster.
//! * **users**: `benchNN@anchor.local` with priority factors
//!   `1000 + N * 0.001` (the script's `ANCHOR_PRIO_SPREAD`), which fix the
//!   order the negotiator takes submitters in.
//!
//! Values the schedd or the clock decide and the negotiator never matches
//! on are fixed here: every job is queued (`QDate`, `EnteredCurrentStatus`,
//! `ServerTime`) at `base_time + 3600`, the schedd is named `vm` (in
//! `GlobalJobId`), clusters are numbered from [`Spec::first_cluster`], and
//! autocluster ids are given in the order classes are first submitted.
//!
//! The ads are those of real runs: the lean slots and the jobs of the
//! project's captured HTCondor cycles compare equal attribute by attribute
//! (the tests say which few they leave out and why), and a cycle of
//! [`matchmaker::negotiator`] on the generated pool, with the users'
//! factors from [`SyntheticPool::accountant`], makes HTCondor's matches.
//! For a million slots and jobs, [`Layout::Chained`] keeps the memory (and
//! the time to make them) down.
//!
//! ```
//! use negotiator_sim::synthetic::{generate, SlotAttrs, Spec};
//!
//! let spec = Spec { attrs: SlotAttrs::Lean, base_time: 1_795_592_353, ..Spec::new(200, 200, 3, 6) };
//! let pool = generate(&spec)?;
//! assert_eq!((pool.slots.len(), pool.jobs.len(), pool.users.len()), (200, 200, 3));
//! assert_eq!(pool.slots[0].len(), 51);
//! assert_eq!(pool.slots[0].eval_attr("Name"), classad::Value::from("slot1@wn00000.anchor.invalid"));
//! assert_eq!(pool.jobs[0].eval_attr("User"), classad::Value::from("bench01@anchor.local"));
//! assert_eq!(pool.users[2].name, "bench03@anchor.local");
//! assert_eq!(pool.users[2].factor, 1000.003);
//! # Ok::<(), negotiator_sim::synthetic::SpecError>(())
//! ```

use std::sync::Arc;

use classad::{ClassAd, Expr, Name};
use matchmaker::config::{Config, ConfigError, Source};

/// The domain of the bench users and of the slots' `UidDomain` and
/// `FileSystemDomain`.
pub const DOMAIN: &str = "anchor.local";

/// The name of the schedd the jobs are queued in (it appears in
/// `GlobalJobId`).
pub const SCHEDD_NAME: &str = "vm";

/// Most users a [`Spec`] may have.
pub const MAX_USERS: usize = 1_000_000;

/// Slots per fake host.
const SLOTS_PER_HOST: usize = 8;

/// Which attributes slot ads have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SlotAttrs {
    /// The script's 158-attribute ads, modelled on a real 23.9.6 static
    /// slot (`ANCHOR_SLOT_ATTRS=full`).
    #[default]
    Full,
    /// The 51 attributes the negotiator and matching use
    /// (`ANCHOR_SLOT_ATTRS=lean`).
    Lean,
}

impl SlotAttrs {
    /// The script's name of the mode: `full` or `lean`.
    pub fn name(self) -> &'static str {
        match self {
            SlotAttrs::Full => "full",
            SlotAttrs::Lean => "lean",
        }
    }
}

/// How generated ads hold their attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Layout {
    /// Every ad holds all its attributes.
    #[default]
    Flat,
    /// Each ad holds only what is its own (a slot's `Name` and `SlotID`, a
    /// job's `ProcId` and `GlobalJobId`) and is chained
    /// ([`ClassAd::chain_to`]) to an ad of everything its host's slots, or
    /// its batch's jobs, share, as HTCondor's schedd chains a job to its
    /// cluster. Evaluation and [`ClassAd::lookup`] see the shared
    /// attributes; [`ClassAd::get`], [`ClassAd::iter`] and [`ClassAd::len`]
    /// see only the ad's own. A tenth of the memory of
    /// [`Flat`](Layout::Flat), and much faster to make.
    ///
    /// ```
    /// use negotiator_sim::synthetic::{generate, Layout, Spec};
    /// let pool = generate(&Spec { layout: Layout::Chained, ..Spec::new(16, 4, 2, 2) })?;
    /// let slot = &pool.slots[9];
    /// assert_eq!(slot.len(), 2); // Name and SlotID
    /// assert_eq!(slot.eval_attr("Name"), classad::Value::from("slot2@wn00001.anchor.invalid"));
    /// assert_eq!(slot.eval_attr("Memory"), classad::Value::Int(2048)); // from the host's ad
    /// # Ok::<(), negotiator_sim::synthetic::SpecError>(())
    /// ```
    Chained,
}

/// What to generate: the arguments of the benchmark script
/// (`negotiation-bench.sh SLOTS JOBS USERS AUTOCLUSTERS`) and what its
/// environment and the clock decide.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// Number of slot ads.
    pub slots: usize,
    /// Number of idle jobs, spread over the users as evenly as possible.
    pub jobs: usize,
    /// Number of users (`bench01`, ...); at least 1.
    pub users: usize,
    /// Number of job classes (autoclusters); at least 1. With at least as
    /// many classes as users every user gets classes of its own.
    pub autoclusters: usize,
    /// Which slot attributes.
    pub attrs: SlotAttrs,
    /// The script's `int(time.time()) - 3600`: when the fake startds
    /// started (epoch seconds). Jobs are queued an hour later.
    pub base_time: i64,
    /// The first user's `ClusterId` (the schedd's next cluster id; 1 on a
    /// fresh schedd).
    pub first_cluster: i64,
    /// How the ads hold their attributes.
    pub layout: Layout,
    /// `DEFAULT_PRIO_FACTOR` of the pool (HTCondor's default: 1000).
    pub prio_factor_base: f64,
    /// The script's `ANCHOR_PRIO_SPREAD`: user N's factor is
    /// `prio_factor_base + N * prio_spread`.
    pub prio_spread: f64,
}

impl Spec {
    /// The pool of `negotiation-bench.sh SLOTS JOBS USERS AUTOCLUSTERS` with
    /// the script's defaults: full slot ads, base time an hour before now,
    /// clusters from 1, factors `1000 + N * 0.001`.
    pub fn new(slots: usize, jobs: usize, users: usize, autoclusters: usize) -> Spec {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
        Spec {
            slots,
            jobs,
            users,
            autoclusters,
            attrs: SlotAttrs::Full,
            base_time: now - 3600,
            first_cluster: 1,
            layout: Layout::Flat,
            prio_factor_base: 1000.0,
            prio_spread: 0.001,
        }
    }

    fn check(&self) -> Result<(), SpecError> {
        if self.users == 0 {
            return Err(SpecError::NoUsers);
        }
        if self.users > MAX_USERS {
            return Err(SpecError::TooManyUsers(self.users));
        }
        if self.autoclusters == 0 {
            return Err(SpecError::NoClasses);
        }
        if self.base_time.checked_add(3600).is_none() {
            return Err(SpecError::BaseTime(self.base_time));
        }
        // HTCondor's cluster ids are positive C ints.
        if self.first_cluster < 1 || self.first_cluster + self.users as i64 - 1 > i64::from(i32::MAX) {
            return Err(SpecError::FirstCluster(self.first_cluster));
        }
        Ok(())
    }

    /// The user names, `bench01` ... (two digits at least, more when there
    /// are more users: `bench001` for 100 to 999 users).
    fn user_names(&self) -> Vec<String> {
        let width = self.users.to_string().len().max(2);
        (1..=self.users).map(|u| format!("bench{u:0width$}")).collect()
    }

    /// The users with their submitter names and priority factors.
    ///
    /// ```
    /// use negotiator_sim::synthetic::Spec;
    /// let users = Spec::new(0, 0, 12, 12).users()?;
    /// assert_eq!((users[11].owner.as_str(), users[11].factor), ("bench12", 1000.012));
    /// # Ok::<(), negotiator_sim::synthetic::SpecError>(())
    /// ```
    pub fn users(&self) -> Result<Vec<User>, SpecError> {
        self.check()?;
        Ok(self
            .user_names()
            .into_iter()
            .enumerate()
            .map(|(i, owner)| {
                // The script prints the factor with %.6f and condor_userprio
                // reads that text back.
                let factor = self.prio_factor_base + (i + 1) as f64 * self.prio_spread;
                let factor = format!("{factor:.6}").parse().unwrap_or(factor);
                User { name: format!("{owner}@{DOMAIN}"), owner, factor }
            })
            .collect())
    }

    /// The slot ads, one at a time (in the order the script writes them),
    /// for pools too big to hold.
    ///
    /// ```
    /// use negotiator_sim::synthetic::Spec;
    /// let spec = Spec::new(20, 0, 1, 1);
    /// let cpus: Vec<_> = spec.slot_ads()?.step_by(8).map(|ad| ad.eval_attr("Cpus")).collect();
    /// assert_eq!(cpus, [1.into(), 1.into(), 1.into()]); // hosts 0, 1 and 2
    /// assert_eq!(spec.slot_ads()?.last().map(|ad| ad.eval_attr("TotalSlots")), Some(4.into()));
    /// # Ok::<(), negotiator_sim::synthetic::SpecError>(())
    /// ```
    pub fn slot_ads(&self) -> Result<SlotAds, SpecError> {
        self.check()?;
        let first_user = self.user_names().swap_remove(0);
        Ok(SlotAds {
            consts: Arc::new(SlotConsts::new(self.attrs, &first_user)),
            spec: self.clone(),
            next: 0,
            host: None,
        })
    }

    /// The job ads, one at a time, in queue order (cluster by cluster, each
    /// cluster's procs in order).
    ///
    /// ```
    /// use negotiator_sim::synthetic::Spec;
    /// let spec = Spec::new(0, 3, 2, 2);
    /// let ids: Vec<String> = spec
    ///     .job_ads()?
    ///     .map(|ad| format!("{:?}.{:?}", ad.eval_attr("ClusterId"), ad.eval_attr("ProcId")))
    ///     .collect();
    /// assert_eq!(ids, ["Int(1).Int(0)", "Int(1).Int(1)", "Int(2).Int(0)"]);
    /// # Ok::<(), negotiator_sim::synthetic::SpecError>(())
    /// ```
    pub fn job_ads(&self) -> Result<JobAds, SpecError> {
        self.check()?;
        Ok(JobAds { gen: JobGen::new(self), batch: 0, template: None, done: 0 })
    }

    /// The number of job classes that get jobs (the script's second output
    /// number).
    pub fn classes_used(&self) -> usize {
        let mut used: Vec<usize> = self.batches().iter().map(|b| b.class).collect();
        used.sort_unstable();
        used.dedup();
        used.len()
    }

    /// The `queue` statements of every submit file, in submission order,
    /// with cluster ids and autocluster ids; batches of no jobs left out.
    fn batches(&self) -> Vec<Batch> {
        let (users, classes) = (self.users.max(1), self.autoclusters.max(1));
        let mut out = Vec::new();
        let mut cluster = self.first_cluster;
        let mut autocluster_of = std::collections::HashMap::new();
        for u in 0..users {
            let n_u = self.jobs / users + usize::from(u < self.jobs % users);
            // The user's classes: u, u + users, ... below `classes`; or, with
            // fewer classes than users, the one class u % classes.
            let (first_class, step, n_classes) = if classes >= users {
                (u, users, if u < classes { (classes - u - 1) / users + 1 } else { 0 })
            } else {
                (u % classes, 1, 1)
            };
            let first = out.len();
            let mut procs = 0;
            // Classes past the first n_u get no job (nor does any class when
            // n_u is 0), so they are never looked at.
            for ci in 0..n_classes.min(n_u) {
                let k = first_class + ci * step;
                let n = n_u / n_classes + usize::from(ci < n_u % n_classes);
                let next = autocluster_of.len() as i64 + 1;
                let autocluster = *autocluster_of.entry(k).or_insert(next);
                let first_proc = procs as i64;
                out.push(Batch { user: u, class: k, count: n, cluster, autocluster, cluster_procs: 0, first_proc });
                procs += n;
            }
            if out.len() > first {
                // One submit file is one cluster; a file that queues nothing
                // makes none.
                out[first..].iter_mut().for_each(|b| b.cluster_procs = procs);
                cluster += 1;
            }
        }
        out
    }

    /// The directory the script writes its files in, as `JobSubmitFile`
    /// shows it.
    fn run_dir(&self) -> String {
        format!(
            "/tmp/anchor-bench/run-{}-{}-{}-{}-{}",
            self.slots,
            self.jobs,
            self.users,
            self.autoclusters,
            self.attrs.name()
        )
    }
}

/// A [`Spec`] that cannot be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// No users.
    #[error("a synthetic pool needs at least one user")]
    NoUsers,
    /// No job classes.
    #[error("a synthetic pool needs at least one job class (autocluster)")]
    NoClasses,
    /// More users than [`MAX_USERS`].
    #[error("{0} users is too many for a synthetic pool (at most 1000000)")]
    TooManyUsers(usize),
    /// A base time too close to the end of time.
    #[error("base time {0} is out of range")]
    BaseTime(i64),
    /// A first cluster id that is not positive, or leaves no room for a
    /// cluster per user.
    #[error(
        "first cluster id {0} is out of range (from 1, and the last user's cluster id must be at most 2147483647)"
    )]
    FirstCluster(i64),
}

/// A bench user.
#[derive(Clone, Debug, PartialEq)]
pub struct User {
    /// The submitter name, `benchNN@anchor.local` (the jobs' `User`).
    pub name: String,
    /// The Unix user, `benchNN` (the jobs' `Owner`).
    pub owner: String,
    /// The priority factor set with `condor_userprio -setfactor`.
    pub factor: f64,
}

/// A generated pool.
#[derive(Clone, Debug, Default)]
pub struct SyntheticPool {
    /// The slot ads (`condor_status -l`).
    pub slots: Vec<ClassAd>,
    /// The idle jobs (`condor_q -l`), in queue order.
    pub jobs: Vec<ClassAd>,
    /// The users, `bench01` first.
    pub users: Vec<User>,
}

impl SyntheticPool {
    /// An accountant (no log) holding the users' priority factors, as the
    /// negotiator's is after the script's `condor_userprio -setfactor`s.
    ///
    /// ```
    /// use matchmaker::accountant::AccountantConfig;
    /// use negotiator_sim::synthetic::{generate, Spec};
    /// let pool = generate(&Spec::new(0, 0, 2, 2))?;
    /// let acct = pool.accountant(AccountantConfig::default())?;
    /// assert_eq!(acct.effective_priority("bench02@anchor.local"), 0.5 * 1000.002);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn accountant(
        &self,
        config: matchmaker::accountant::AccountantConfig,
    ) -> Result<matchmaker::accountant::Accountant, matchmaker::accountant::AccountantError> {
        let mut acct = matchmaker::accountant::Accountant::new(config);
        for user in &self.users {
            acct.set_priority_factor(&user.name, user.factor)?;
        }
        Ok(acct)
    }

    /// Puts the users into `n` accounting groups, `bench<k>` in
    /// `group_<k mod n>` (each job gets its `AccountingGroup`), and
    /// configures the groups: a dynamic quota of 1/n each, surplus
    /// accepted. This is `negotiator-sim bench --groups n`.
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// use negotiator_sim::synthetic::{generate, Spec};
    /// let mut pool = generate(&Spec::new(8, 4, 2, 2))?;
    /// let mut config = Config::default();
    /// pool.put_in_groups(&mut config, 3)?;
    /// assert_eq!(config.get_string("GROUP_NAMES")?, "group_0, group_1, group_2");
    /// assert_eq!(pool.jobs[0].eval_attr("AccountingGroup"), classad::Value::from("group_1.bench01"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn put_in_groups(&mut self, config: &mut Config, n: usize) -> Result<(), ConfigError> {
        let n = n.max(1);
        let names: Vec<String> = (0..n).map(|k| format!("group_{k}")).collect();
        let mut set = |name: &str, value: &str| config.set(name, value, Source::Default);
        set("GROUP_NAMES", &names.join(", "))?;
        set("GROUP_ACCEPT_SURPLUS", "True")?;
        for name in &names {
            set(&format!("GROUP_QUOTA_DYNAMIC_{name}"), &format!("{}", 1.0 / n as f64))?;
        }
        for job in &mut self.jobs {
            let user = match job.eval_attr("User") {
                classad::Value::Str(u) => u.as_str().to_string(),
                _ => continue,
            };
            let local = user.split('@').next().unwrap_or("");
            let k: usize = local.trim_start_matches(|c: char| !c.is_ascii_digit()).parse().unwrap_or(0);
            job.insert("AccountingGroup", format!("{}.{local}", names[k % n]).as_str());
        }
        Ok(())
    }
}

/// Generates the whole pool in memory, on all cores.
///
/// Ads share their common values (strings and expressions are reference
/// counted), but each flat ad has its own attribute table: a million slots
/// and a million jobs take some 13 GB with full slot ads and 9 GB with lean
/// ones, and most of the time goes to the kernel handing out that memory.
/// [`Layout::Chained`] takes 2.0 and 1.4 GB (a few seconds in a release
/// build); [`Spec::slot_ads`] and [`Spec::job_ads`] give the ads one at a
/// time instead.
pub fn generate(spec: &Spec) -> Result<SyntheticPool, SpecError> {
    use rayon::prelude::*;
    let users = spec.users()?;
    let consts = SlotConsts::new(spec.attrs, &users[0].owner);
    let slots = (0..spec.slots.div_ceil(SLOTS_PER_HOST))
        .into_par_iter()
        .flat_map_iter(|h| host_slots(&consts, spec, h))
        .collect();
    // The jobs in pieces of at most JOB_CHUNK, each made from its batch's
    // template.
    const JOB_CHUNK: usize = 4096;
    let gen = JobGen::new(spec);
    let pieces: Vec<(Batch, usize)> =
        gen.batches.iter().flat_map(|b| (0..b.count).step_by(JOB_CHUNK).map(move |start| (*b, start))).collect();
    let jobs = pieces
        .into_par_iter()
        .flat_map_iter(|(b, start)| {
            let template = gen.template(&b);
            let end = b.count.min(start + JOB_CHUNK);
            (start..end).map(|i| gen.job(&template, b.cluster, b.first_proc + i as i64)).collect::<Vec<_>>()
        })
        .collect();
    Ok(SyntheticPool { slots, jobs, users })
}

// ----------------------------------------------------------------- slots

/// The script's host types: (cores, MB of memory) per slot.
const HOST_TYPES: [(i64, i64); 8] =
    [(1, 2048), (1, 2048), (1, 4096), (1, 4096), (2, 8192), (2, 8192), (4, 16384), (8, 32768)];

/// The script's operating systems: name, major version, version, long name.
const OSES: [(&str, i64, i64, &str); 3] = [
    ("AlmaLinux", 9, 904, "AlmaLinux 9.4 (Seafoam Ocelot)"),
    ("Rocky", 8, 810, "Rocky Linux 8.10 (Green Obsidian)"),
    ("Debian", 12, 1200, "Debian GNU/Linux 12 (bookworm)"),
];

const CONDOR_VERSION: &str = "$CondorVersion: 23.9.6 2026-07-12 PackageID: 23.9.6+dfsg-2.1+b10 $";
const CONDOR_PLATFORM: &str = "$CondorPlatform: X86_64-Debian_13 $";

/// The attributes of lean slot ads.
const LEAN: [&str; 51] = [
    "MyType",
    "TargetType",
    "Name",
    "Machine",
    "MyAddress",
    "StartdIpAddr",
    "SlotID",
    "SlotType",
    "SlotTypeID",
    "State",
    "Activity",
    "EnteredCurrentState",
    "EnteredCurrentActivity",
    "Requirements",
    "Start",
    "Rank",
    "CurrentRank",
    "SlotWeight",
    "Cpus",
    "Memory",
    "Disk",
    "GPUs",
    "TotalCpus",
    "TotalMemory",
    "TotalDisk",
    "TotalSlots",
    "DetectedCpus",
    "DetectedMemory",
    "Arch",
    "OpSys",
    "OpSysAndVer",
    "OpSysMajorVer",
    "OpSysName",
    "Microarch",
    "HasFileTransfer",
    "FileSystemDomain",
    "UidDomain",
    "KeyboardIdle",
    "ConsoleIdle",
    "LoadAvg",
    "CondorLoadAvg",
    "TotalLoadAvg",
    "Mips",
    "KFlops",
    "CondorVersion",
    "CondorPlatform",
    "DaemonStartTime",
    "UpdateSequenceNumber",
    "WantClaiming",
    "AnchorSynthetic",
    "ClassAdLifetime",
];

/// Parses an expression this module spells itself.
fn expr(text: &str) -> Expr {
    classad::parse_expr(text).unwrap_or_else(|e| panic!("synthetic pool expression `{text}`: {e}"))
}

/// What every slot ad of a pool shares: the expressions, parsed once, and
/// the long strings, allocated once.
struct SlotConsts {
    lean: Option<Vec<Name>>,
    name: Name,
    slot_id: Name,
    start_true: Expr,
    start_resources: Expr,
    start_desktop: Expr,
    rank_first_user: Expr,
    real_zero: Expr,
    duty_cycle: Expr,
    vacate_time: Expr,
    requirements: Expr,
    slot_weight: Expr,
    unhibernate: Expr,
    strings: [Expr; 12],
}

/// Indices into [`SlotConsts::strings`].
const VERSION: usize = 0;
const PLATFORM: usize = 1;
const PLUGINS: usize = 2;
const STARTER_ABILITIES: usize = 3;
const UPDATES_HISTORY: usize = 4;
const MACHINE_RESOURCES: usize = 5;
const UTS_RELEASE: usize = 6;
const UTS_VERSION: usize = 7;
const COLLECTOR: usize = 8;
const SCRATCH: usize = 9;
const IDLE: usize = 10;
const UNCLAIMED: usize = 11;

impl SlotConsts {
    fn new(attrs: SlotAttrs, first_user: &str) -> SlotConsts {
        let s = |text: &str| Expr::from(text);
        SlotConsts {
            lean: (attrs == SlotAttrs::Lean).then(|| LEAN.iter().map(|n| Name::new(n)).collect()),
            name: Name::new("Name"),
            slot_id: Name::new("SlotID"),
            start_true: expr("true"),
            start_resources: expr("(TARGET.RequestCpus <= MY.Cpus) && (TARGET.RequestMemory <= MY.Memory)"),
            start_desktop: expr("(KeyboardIdle > 15 * 60) && ((LoadAvg - CondorLoadAvg) <= 0.3)"),
            rank_first_user: expr(&format!("(TARGET.Owner =?= \"{first_user}\") * 10.0")),
            real_zero: Expr::from(0.0),
            duty_cycle: expr("0.0006769981417236171"),
            vacate_time: expr("10 * 60"),
            requirements: expr("START"),
            slot_weight: expr("Cpus"),
            unhibernate: expr("MY.MachineLastMatchTime =!= undefined"),
            strings: [
                s(CONDOR_VERSION),
                s(CONDOR_PLATFORM),
                s("box,https,gdrive,dav,davs,http,onedrive,data,ftp,file,s3,gs"),
                s("HasVM,HasMPI,HasTDP,HasSshd,HasReconnect,HasJobDeferral,HasFileTransfer,HasJICLocalStdin,HasJICLocalConfig,HasPerFileEncryption,HasJobTransferPlugins,HasTransferInputRemaps,HasSelfCheckpointTransfers,HasFileTransferPluginMethods"),
                s("00000000000000000000000000000000"),
                s("Cpus Memory Disk Swap GPUs"),
                s("5.14.0-427.el9.x86_64"),
                s("#1 SMP PREEMPT_DYNAMIC"),
                s("127.0.0.1:9618"),
                s("#CoNdOrScRaTcHdIr#"),
                s("Idle"),
                s("Unclaimed"),
            ],
        }
    }
}

/// One host's slot ad, with the slot's own `Name` and `SlotID` still to
/// fill in.
struct HostTemplate {
    host: usize,
    host_name: String,
    ad: Arc<ClassAd>,
    layout: Layout,
}

impl HostTemplate {
    /// Slot `slot` (1 to 8) of the host: the template with its name and id.
    fn slot(&self, c: &SlotConsts, slot: usize) -> ClassAd {
        let mut ad = match self.layout {
            Layout::Flat => ClassAd::clone(&self.ad),
            Layout::Chained => {
                let mut own = ClassAd::with_capacity(2);
                own.chain_to(Arc::clone(&self.ad));
                own
            }
        };
        ad.insert(c.name, Expr::from(format!("slot{slot}@{}", self.host_name)));
        ad.insert(c.slot_id, Expr::from(slot as i64));
        ad
    }
}

/// The slot ads of a [`Spec`], generated one at a time; see
/// [`Spec::slot_ads`].
pub struct SlotAds {
    consts: Arc<SlotConsts>,
    spec: Spec,
    next: usize,
    host: Option<HostTemplate>,
}

impl Iterator for SlotAds {
    type Item = ClassAd;

    fn next(&mut self) -> Option<ClassAd> {
        if self.next >= self.spec.slots {
            return None;
        }
        let h = self.next / SLOTS_PER_HOST;
        if self.host.as_ref().is_none_or(|t| t.host != h) {
            self.host = Some(host_template(&self.consts, &self.spec, h));
        }
        let ad = self.host.as_ref()?.slot(&self.consts, self.next % SLOTS_PER_HOST + 1);
        self.next += 1;
        Some(ad)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.spec.slots - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for SlotAds {}

/// Every slot ad of host `h`.
fn host_slots(c: &SlotConsts, spec: &Spec, h: usize) -> Vec<ClassAd> {
    let t = host_template(c, spec, h);
    let n = SLOTS_PER_HOST.min(spec.slots - h * SLOTS_PER_HOST);
    (1..=n).map(|slot| t.slot(c, slot)).collect()
}

/// The attributes of host `h`'s slots, in the script's order, as the
/// script computes them (`slot_ad` in its generator).
fn host_template(c: &SlotConsts, spec: &Spec, h: usize) -> HostTemplate {
    let base = spec.base_time;
    let (cpus, mem) = HOST_TYPES[h % 8];
    let nslots = SLOTS_PER_HOST.min(spec.slots - h * SLOTS_PER_HOST) as i64;
    let disk = cpus * 20_000_000;
    let arm = h % 20 == 19;
    let (os_name, os_major, os_version, os_long) = OSES[h % 3];
    let host = format!("wn{h:05}.anchor.invalid");
    let port = 9;
    let sinful = Expr::from(format!("<127.0.0.1:{port}?addrs=127.0.0.1-{port}&alias={host}>"));
    let address_v1 = format!(
        "{{[ p=\"primary\"; a=\"127.0.0.1\"; port={port}; n=\"Internet\"; alias=\"{host}\"; ], \
         [ p=\"IPv4\"; a=\"127.0.0.1\"; port={port}; n=\"Internet\"; alias=\"{host}\"; ]}}"
    );
    let host_expr = Expr::from(host.as_str());
    let os_name_expr = Expr::from(os_name);
    let start = match h % 10 {
        0..7 => &c.start_true,
        7 | 8 => &c.start_resources,
        _ => &c.start_desktop,
    };
    let rank = if h % 25 == 0 { c.rank_first_user.clone() } else { c.real_zero.clone() };
    let load = Expr::from((h % 10) as f64 / 100.0);
    let idle = 3600 + ((h * 37) % 86400) as i64;
    let s = |i: usize| c.strings[i].clone();
    let int = |v: i64| Expr::from(v);
    let real = |v: i64| Expr::from(v as f64);
    let yes = || Expr::from(true);
    let no = || Expr::from(false);
    let zero = || Expr::from(0);

    let mut a: Vec<(&str, Expr)> = Vec::with_capacity(160);
    a.extend([
        ("AcceptedWhileDraining", no()),
        ("ActivationRequests", zero()),
        ("Activity", s(IDLE)),
        ("AddressV1", Expr::from(address_v1)),
        ("Arch", Expr::from(if arm { "aarch64" } else { "X86_64" })),
        ("CanHibernate", no()),
        ("ClaimRequests", zero()),
        ("ClockDay", int((h % 7) as i64)),
        ("ClockMin", int((h % 1440) as i64)),
        ("COLLECTOR_HOST_STRING", s(COLLECTOR)),
        ("CondorLoadAvg", c.real_zero.clone()),
        ("CondorPlatform", s(PLATFORM)),
        ("CondorScratchDir", s(SCRATCH)),
        ("CondorVersion", s(VERSION)),
        ("ConsoleIdle", int(idle)),
        ("CpuBusy", no()),
        ("CpuCacheSize", int(512)),
        ("CpuFamily", int(25)),
        ("CpuModelNumber", int(1)),
        ("Cpus", int(cpus)),
        ("CurrentRank", c.real_zero.clone()),
        ("DaemonCoreDutyCycle", c.duty_cycle.clone()),
        ("DaemonLastReconfigTime", int(base)),
        ("DaemonStartTime", int(base)),
        ("DetectedCpus", int(cpus * nslots)),
        ("DetectedGPUs", zero()),
        ("DetectedMemory", int(mem * nslots)),
        ("Disk", int(disk)),
        ("EnteredCurrentActivity", int(base)),
        ("EnteredCurrentState", int(base)),
        ("ExpectedMachineGracefulDrainingBadput", zero()),
        ("ExpectedMachineGracefulDrainingCompletion", int(base)),
        ("ExpectedMachineQuickDrainingBadput", zero()),
        ("ExpectedMachineQuickDrainingCompletion", int(base)),
        ("FileSystemDomain", Expr::from(DOMAIN)),
        ("GPUs", zero()),
        ("HardwareAddress", Expr::from("00:00:00:00:00:00")),
    ]);
    if !arm {
        a.extend([
            ("has_avx", yes()),
            ("has_avx2", yes()),
            ("has_sse4_1", yes()),
            ("has_sse4_2", yes()),
            ("has_ssse3", yes()),
        ]);
    }
    a.extend([
        ("HasFileTransfer", Expr::from(h % 50 != 49)),
        ("HasFileTransferPluginMethods", s(PLUGINS)),
        ("HasIOProxy", yes()),
        ("HasJICLocalConfig", yes()),
        ("HasJICLocalStdin", yes()),
        ("HasJobDeferral", yes()),
        ("HasJobTransferPlugins", yes()),
        ("HasMPI", yes()),
        ("HasPerFileEncryption", yes()),
        ("HasReconnect", yes()),
        ("HasSelfCheckpointTransfers", yes()),
        ("HasSshd", no()),
        ("HasStartDaemonAd", yes()),
        ("HasTDP", yes()),
        ("HasTransferInputRemaps", yes()),
        ("HasVM", no()),
        ("HibernationLevel", zero()),
        ("HibernationState", Expr::from("NONE")),
        ("HibernationSupportedStates", Expr::from("")),
        ("IsLocalStartd", no()),
        ("IsWakeAble", no()),
        ("IsWakeOnLanEnabled", no()),
        ("IsWakeOnLanSupported", no()),
        ("JobPreemptions", zero()),
        ("JobRankPreemptions", zero()),
        ("JobStarts", zero()),
        ("JobUserPrioPreemptions", zero()),
        ("KeyboardIdle", int(idle)),
        ("KFlops", int(1_500_000 + 50_000 * (h % 7) as i64)),
        ("LastBenchmark", int(base)),
        ("LastFetchWorkCompleted", zero()),
        ("LastFetchWorkSpawned", zero()),
        ("LoadAvg", load.clone()),
        ("Machine", host_expr.clone()),
        ("MachineMaxVacateTime", c.vacate_time.clone()),
        ("MachineResources", s(MACHINE_RESOURCES)),
        ("MaxJobRetirementTime", zero()),
        ("Memory", int(mem)),
        ("Microarch", Expr::from(if arm { "armv8.2-a" } else { "x86_64-v3" })),
        ("Mips", int(20_000 + 1000 * (h % 8) as i64)),
        ("MonitorSelfAge", int(3600)),
        ("MonitorSelfCPUUsage", c.real_zero.clone()),
        ("MonitorSelfImageSize", int(23892)),
        ("MonitorSelfRegisteredSocketCount", int(1)),
        ("MonitorSelfResidentSetSize", int(16896)),
        ("MonitorSelfSecuritySessions", int(4)),
        ("MonitorSelfTime", int(base + 3500)),
        ("MyAddress", sinful.clone()),
        ("MyCurrentTime", int(base + 3590)),
        ("MyType", Expr::from("Machine")),
        ("Name", Expr::from("")),
        ("NewDSlotNotMatch", zero()),
        ("NextFetchWorkDelay", int(-1)),
        ("NumPids", zero()),
        ("OpSys", Expr::from("LINUX")),
        ("OpSysAndVer", Expr::from(format!("{os_name}{os_major}"))),
        ("OpSysLegacy", Expr::from("LINUX")),
        ("OpSysLongName", Expr::from(os_long)),
        ("OpSysMajorVer", int(os_major)),
        ("OpSysName", os_name_expr.clone()),
        ("OpSysShortName", os_name_expr),
        ("OpSysVer", int(os_version)),
        ("PrivateNetworkName", host_expr.clone()),
        ("Rank", rank),
        ("RecentActivationRequests", zero()),
        ("RecentClaimRequests", zero()),
        ("RecentDaemonCoreDutyCycle", c.duty_cycle.clone()),
        ("RecentJobPreemptions", zero()),
        ("RecentJobRankPreemptions", zero()),
        ("RecentJobStarts", zero()),
        ("RecentJobUserPrioPreemptions", zero()),
        ("RecentNewDSlotNotMatch", zero()),
        ("Requirements", c.requirements.clone()),
        ("RetirementTimeRemaining", zero()),
        ("SlotID", zero()),
        ("SlotType", Expr::from("Static")),
        ("SlotTypeID", int(1)),
        ("SlotWeight", c.slot_weight.clone()),
        ("Start", start.clone()),
        ("StartdIpAddr", sinful),
        ("StarterAbilityList", s(STARTER_ABILITIES)),
        ("State", s(UNCLAIMED)),
        ("SubnetMask", Expr::from("255.0.0.0")),
        ("TargetType", Expr::from("Job")),
        ("TimeToLive", int(2_147_483_647)),
        ("TotalCondorLoadAvg", c.real_zero.clone()),
        ("TotalCpus", real(cpus * nslots)),
        ("TotalDisk", int(disk * nslots)),
        ("TotalGPUs", zero()),
        ("TotalLoadAvg", load),
        ("TotalMemory", int(mem * nslots)),
        ("TotalSlotCpus", int(cpus)),
        ("TotalSlotDisk", real(disk)),
        ("TotalSlotGPUs", zero()),
        ("TotalSlotMemory", int(mem)),
        ("TotalSlots", int(nslots)),
        ("TotalTimeUnclaimedIdle", int(3600)),
        ("TotalVirtualMemory", int(mem * nslots * 1024)),
        ("UidDomain", Expr::from(DOMAIN)),
        ("Unhibernate", c.unhibernate.clone()),
        ("UpdateSequenceNumber", int(2)),
        ("UpdatesHistory", s(UPDATES_HISTORY)),
        ("UpdatesLost", zero()),
        ("UpdatesSequenced", int(1)),
        ("UpdatesTotal", int(2)),
        ("UtsnameMachine", Expr::from(if arm { "aarch64" } else { "x86_64" })),
        ("UtsnameNodename", host_expr),
        ("UtsnameRelease", s(UTS_RELEASE)),
        ("UtsnameSysname", Expr::from("Linux")),
        ("UtsnameVersion", s(UTS_VERSION)),
        ("VirtualMemory", zero()),
        ("WakeOnLanEnabledFlags", Expr::from("NONE")),
        ("WakeOnLanSupportedFlags", Expr::from("NONE")),
        // The script's additions: no claiming, a mark, a day's lifetime.
        ("WantClaiming", no()),
        ("AnchorSynthetic", yes()),
        ("ClassAdLifetime", int(86400)),
    ]);
    let mut attrs: Vec<(Name, Expr)> = Vec::with_capacity(a.len());
    for (text, value) in a {
        let name = Name::new(text);
        if c.lean.as_ref().is_none_or(|lean| lean.contains(&name)) {
            attrs.push((name, value));
        }
    }
    if spec.layout == Layout::Chained {
        // The slots' own attributes are theirs alone.
        attrs.retain(|(name, _)| *name != c.name && *name != c.slot_id);
    }
    HostTemplate { host: h, host_name: host, ad: Arc::new(ClassAd::from_attributes(attrs)), layout: spec.layout }
}

// ------------------------------------------------------------------ jobs

/// A job class of the script (`job_class(k)`): cores, MB, KB of disk,
/// rank, extra requirements.
fn job_class(k: usize) -> (i64, i64, i64, &'static str, &'static str) {
    let cpus = [1, 1, 1, 1, 2, 2, 4, 8][k % 8];
    let mem = cpus * [1024, 2048, 1536, 512][(k / 8) % 4];
    let disk = 1_000_000 + 1000 * k as i64;
    let rank = ["", "Memory", "KFlops"][k % 3];
    let req = if k % 5 == 4 { "(TARGET.OpSysMajorVer >= 9)" } else { "" };
    (cpus, mem, disk, rank, req)
}

/// The `Requirements` condor_submit 23.9 builds for a job of the script's
/// submit files (vanilla universe, file transfer, submitted on an x86_64
/// Linux host): the submit file's own requirements first, then the
/// platform, disk and memory, cores when more than one is asked for, and
/// file transfer.
fn submit_requirements(extra: &str, cpus: i64) -> String {
    let mut out = String::new();
    if !extra.is_empty() {
        out.push_str(&format!("({extra}) && "));
    }
    out.push_str(
        "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && \
         (TARGET.Memory >= RequestMemory)",
    );
    if cpus > 1 {
        out.push_str(" && (TARGET.Cpus >= RequestCpus)");
    }
    out.push_str(" && (TARGET.HasFileTransfer)");
    out
}

/// The schedd's `AutoClusterAttrs` for a job with this rank: its default
/// significant attributes, the job attributes the rank refers to, and
/// `RequestDisk`.
fn autocluster_attrs(rank: &str) -> String {
    let mut out =
        String::from("Offline,Owner,RemoteOwner,RequestCpus,RequestMemory,TotalJobRuntime,ConcurrencyLimits,FlockTo,Rank,Requirements");
    if !rank.is_empty() {
        out.push(',');
        out.push_str(rank);
    }
    out.push_str(",RequestDisk");
    out
}

/// One `queue N` of a submit file.
#[derive(Clone, Copy, Debug)]
struct Batch {
    user: usize,
    class: usize,
    count: usize,
    cluster: i64,
    autocluster: i64,
    /// Jobs in the batch's cluster (`TotalSubmitProcs`).
    cluster_procs: usize,
    /// The `ProcId` of the batch's first job.
    first_proc: i64,
}

/// What job ads are made from.
struct JobGen {
    spec: Spec,
    owners: Vec<String>,
    batches: Vec<Batch>,
    proc_id: Name,
    global_job_id: Name,
}

impl JobGen {
    fn new(spec: &Spec) -> JobGen {
        JobGen {
            spec: spec.clone(),
            owners: spec.user_names(),
            batches: spec.batches(),
            proc_id: Name::new("ProcId"),
            global_job_id: Name::new("GlobalJobId"),
        }
    }

    /// The ad of a batch's jobs, without their `ProcId` and `GlobalJobId`.
    fn template(&self, b: &Batch) -> Arc<ClassAd> {
        let mut ad = job_template(&self.spec, &self.owners[b.user], b);
        if self.spec.layout == Layout::Chained {
            ad.remove(self.proc_id);
            ad.remove(self.global_job_id);
        }
        Arc::new(ad)
    }

    /// The job `proc` of a batch's cluster, from the batch's template.
    fn job(&self, template: &Arc<ClassAd>, cluster: i64, proc: i64) -> ClassAd {
        let mut ad = match self.spec.layout {
            Layout::Flat => ClassAd::clone(template),
            Layout::Chained => {
                let mut own = ClassAd::with_capacity(2);
                own.chain_to(Arc::clone(template));
                own
            }
        };
        let qdate = self.spec.base_time + 3600;
        ad.insert(self.proc_id, Expr::from(proc));
        ad.insert(self.global_job_id, Expr::from(format!("{SCHEDD_NAME}#{cluster}.{proc}#{qdate}")));
        ad
    }
}

/// The job ads of a [`Spec`], generated one at a time; see
/// [`Spec::job_ads`].
pub struct JobAds {
    gen: JobGen,
    /// The batch being made, its template and the next job's index in it.
    batch: usize,
    template: Option<Arc<ClassAd>>,
    done: usize,
}

impl Iterator for JobAds {
    type Item = ClassAd;

    fn next(&mut self) -> Option<ClassAd> {
        let mut b = *self.gen.batches.get(self.batch)?;
        if self.done == b.count {
            self.batch += 1;
            self.done = 0;
            self.template = None;
            b = *self.gen.batches.get(self.batch)?;
        }
        if self.template.is_none() {
            self.template = Some(self.gen.template(&b));
        }
        let ad = self.gen.job(self.template.as_ref()?, b.cluster, b.first_proc + self.done as i64);
        self.done += 1;
        Some(ad)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let rest = self.gen.batches.get(self.batch..).unwrap_or_default();
        let left = rest.iter().map(|b| b.count).sum::<usize>() - self.done.min(rest.first().map_or(0, |b| b.count));
        (left, Some(left))
    }
}

impl ExactSizeIterator for JobAds {}

/// The ad of a batch's jobs, attributes in `condor_q -l`'s order.
fn job_template(spec: &Spec, owner: &str, b: &Batch) -> ClassAd {
    let (cpus, mem, disk, rank, req) = job_class(b.class);
    let qdate = spec.base_time + 3600;
    let int = |v: i64| Expr::from(v);
    let zero = || Expr::from(0);
    let real_zero = || Expr::from(0.0);
    let no = || Expr::from(false);
    let a: Vec<(&str, Expr)> = vec![
        ("AnchorBench", Expr::from(true)),
        ("AnchorClass", int(b.class as i64)),
        ("Args", Expr::from("3600")),
        ("AutoClusterAttrs", Expr::from(autocluster_attrs(rank))),
        ("AutoClusterId", int(b.autocluster)),
        ("ClusterId", int(b.cluster)),
        ("Cmd", Expr::from("/bin/sleep")),
        ("CommittedSlotTime", zero()),
        ("CommittedSuspensionTime", zero()),
        ("CommittedTime", zero()),
        ("CondorPlatform", Expr::from(CONDOR_PLATFORM)),
        ("CondorVersion", Expr::from(CONDOR_VERSION)),
        ("CumulativeRemoteSysCpu", real_zero()),
        ("CumulativeRemoteUserCpu", real_zero()),
        ("CumulativeSlotTime", zero()),
        ("CumulativeSuspensionTime", zero()),
        ("CurrentHosts", zero()),
        ("DiskUsage", int(45)),
        ("DiskUsage_RAW", int(43)),
        ("EnteredCurrentStatus", int(qdate)),
        ("Environment", Expr::from("")),
        ("Err", Expr::from("/dev/null")),
        ("ExecutableSize", int(45)),
        ("ExecutableSize_RAW", int(43)),
        ("ExitBySignal", no()),
        ("ExitStatus", zero()),
        ("GlobalJobId", Expr::from("")),
        ("ImageSize", int(45)),
        ("ImageSize_RAW", int(43)),
        ("In", Expr::from("/dev/null")),
        ("Iwd", Expr::from("/tmp/anchor-bench")),
        ("JobBatchName", Expr::from("anchor-bench")),
        ("JobLeaseDuration", int(2400)),
        ("JobNotification", zero()),
        ("JobPrio", zero()),
        ("JobStatus", int(1)),
        ("JobSubmitFile", Expr::from(format!("{}/{owner}.sub", spec.run_dir()))),
        ("JobSubmitMethod", zero()),
        ("JobUniverse", int(5)),
        ("LastSuspensionTime", zero()),
        ("LeaveJobInQueue", no()),
        ("MaxHosts", int(1)),
        ("MinHosts", int(1)),
        ("MyType", Expr::from("Job")),
        ("NumCkpts", zero()),
        ("NumCkpts_RAW", zero()),
        ("NumJobCompletions", zero()),
        ("NumJobStarts", zero()),
        ("NumRestarts", zero()),
        ("NumSystemHolds", zero()),
        ("Out", Expr::from("/dev/null")),
        ("Owner", Expr::from(owner)),
        ("ProcId", zero()),
        ("QDate", int(qdate)),
        ("Rank", if rank.is_empty() { real_zero() } else { expr(rank) }),
        ("RemoteSysCpu", real_zero()),
        ("RemoteUserCpu", real_zero()),
        ("RemoteWallClockTime", real_zero()),
        ("RequestCpus", int(cpus)),
        ("RequestDisk", int(disk)),
        ("RequestMemory", int(mem)),
        ("Requirements", expr(&submit_requirements(req, cpus))),
        ("ServerTime", int(qdate)),
        ("ShouldTransferFiles", Expr::from("YES")),
        ("TargetType", Expr::from("Machine")),
        ("TotalSubmitProcs", int(b.cluster_procs as i64)),
        ("TotalSuspensions", zero()),
        ("TransferErr", no()),
        ("TransferIn", no()),
        ("TransferInputSizeMB", zero()),
        ("TransferOut", no()),
        ("User", Expr::from(format!("{owner}@{DOMAIN}"))),
        ("WhenToTransferOutput", Expr::from("ON_EXIT")),
    ];
    ClassAd::from_attributes(a.into_iter().map(|(n, e)| (Name::new(n), e)).collect::<Vec<_>>())
}
