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
//! The slot ads are made in `slots`, the job ads in `jobs`; the pool's
//! description ([`Spec`]), its users and [`generate`] are here.
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

use classad::{ClassAd, Expr};
use matchmaker::config::{Config, ConfigError, Source};

mod jobs;
mod slots;

pub use jobs::JobAds;
use jobs::{Batch, JobGen};
pub use slots::SlotAds;
use slots::{host_slots, SlotConsts};

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

/// The HTCondor version the ads were captured from (slots and jobs show it).
const CONDOR_VERSION: &str = "$CondorVersion: 23.9.6 2026-07-12 PackageID: 23.9.6+dfsg-2.1+b10 $";
/// The platform of that HTCondor.
const CONDOR_PLATFORM: &str = "$CondorPlatform: X86_64-Debian_13 $";

/// Parses an expression this module spells itself.
fn expr(text: &str) -> Expr {
    classad::parse_expr(text).unwrap_or_else(|e| panic!("synthetic pool expression `{text}`: {e}"))
}
