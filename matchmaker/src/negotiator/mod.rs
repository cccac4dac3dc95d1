//! One negotiation cycle, as HTCondor's `condor_negotiator` runs it.
//!
//! A [`Negotiator`] is built once from the configuration (its policy
//! expressions parsed once); [`Negotiator::cycle`] takes the pool's slot
//! ads, each submitter's resource requests (see
//! [`autocluster`](crate::autocluster)), the [`Accountant`] and the time,
//! and returns a [`CycleOutcome`]: which request got which slot, which
//! were rejected and why, each submitter's share and limit, and the
//! cycle's statistics. The cycle reads no clock and draws no random
//! number: the same inputs give the same outcome.
//!
//! The phases are HTCondor's. Accounting: priorities are brought up to
//! `now` and usage is recounted from the claimed slots; the pool's slot
//! weight is summed; slots that cannot be matched are trimmed. The pie:
//! submitters share the pool by the inverse of their effective priority,
//! each one's limit is its share less what it uses, and they negotiate in
//! priority order, spin after spin, while a spin hands out something and
//! there are slots left. Matching one request: every available slot that
//! matches it both ways is a candidate, unclaimed or to be preempted for
//! the slot's `RANK` or the submitter's priority; candidates are ranked by
//! `NEGOTIATOR_PRE_JOB_RANK`, the job's `Rank`, `NEGOTIATOR_POST_JOB_RANK`,
//! how the slot is taken and `PREEMPTION_RANK`, and the sorted list is
//! kept for the autocluster's next requests.
//!
//! With `ALLOW_PSLOT_PREEMPTION` ([`Settings::allow_pslot_preemption`]),
//! dynamic slots are reached only through their partitionable slot: a
//! p-slot too small for a job is tried with the resources of some of its
//! dynamic slots added (read from its `Child*` lists, lowest `CurrentRank`
//! first), and taken with them as one candidate, which the match reports
//! in [`MatchRecord::preempted_dynamic_slots`] (see docs/negotiation.md).
//!
//! ```
//! use classad::ClassAd;
//! use matchmaker::accountant::{Accountant, AccountantConfig};
//! use matchmaker::autocluster::{queues, significant_attributes};
//! use matchmaker::config::Config;
//! use matchmaker::negotiator::Negotiator;
//!
//! let slots: Vec<ClassAd> = (1..=4)
//!     .map(|i| format!(r#"[ Name = "slot{i}@node"; Cpus = 1; Memory = 2048; SlotID = {i};
//!         State = "Unclaimed"; Start = true; Requirements = START; Rank = 0 ]"#).parse())
//!     .collect::<Result<_, _>>()?;
//! let jobs: Vec<ClassAd> = (0..6)
//!     .map(|p| format!(r#"[ ClusterId = 1; ProcId = {p}; JobStatus = 1; User = "{}@site";
//!         RequestCpus = 1; RequestMemory = 1024; Requirements = TARGET.Memory >= RequestMemory ]"#,
//!         if p % 2 == 0 { "amy" } else { "bob" }).parse())
//!     .collect::<Result<_, _>>()?;
//!
//! let config = Config::default();
//! let negotiator = Negotiator::from_config(&config)?;
//! let mut accountant = Accountant::new(AccountantConfig::from_config(&config)?);
//! let queues = queues(&jobs, &significant_attributes(&slots, &negotiator.expressions()));
//! let outcome = negotiator.cycle(&mut accountant, &slots, &queues, 1_000_000)?;
//! assert_eq!(outcome.stats.matches, 4);
//! assert_eq!((outcome.matches_of("amy@site"), outcome.matches_of("bob@site")), (2, 2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cycle;
mod match_list;
mod memory;
mod outcome;
mod pslot_preemption;
mod ranges;
mod rank_cache;

pub use crate::groups::{GroupReport, GroupRoundFigures, GroupRoundTotals};
pub use memory::CycleMemory;
pub use outcome::{CycleOutcome, CycleStats, MatchRecord, RejectReason, Rejection, Stopped, SubmitterReport};

use std::sync::Arc;

use classad::Expr;

use crate::accountant::{Accountant, AccountantError};
use crate::autocluster::SubmitterQueue;
use crate::candidates::RankExprs;
use crate::concurrency::Capacities;
use crate::config::{Config, ConfigError};
use crate::groups::{GroupQuotaConfig, RoundRobinTimes};

/// Why a cycle could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NegotiatorError {
    /// The accountant could not record a change (its log could not be
    /// written).
    #[error(transparent)]
    Accountant(#[from] AccountantError),
}

/// The negotiator's knobs, with HTCondor's names and defaults.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Settings {
    /// NEGOTIATOR_CONSIDER_PREEMPTION (true): claimed slots may be
    /// preempted; without it they are trimmed.
    pub consider_preemption: bool,
    /// NEGOTIATOR_CONSIDER_EARLY_PREEMPTION (false): without it, slots
    /// whose job still has retirement time left are trimmed.
    pub consider_early_preemption: bool,
    /// NEGOTIATOR_MATCHLIST_CACHING (true): keep an autocluster's sorted
    /// candidates for its next requests.
    pub matchlist_caching: bool,
    /// NEGOTIATOR_IGNORE_USER_PRIORITIES (false): every limit is infinite.
    pub ignore_user_priorities: bool,
    /// NEGOTIATOR_USE_SLOT_WEIGHTS (true): slots cost their `SlotWeight`.
    pub use_slot_weights: bool,
    /// NEGOTIATOR_DEPTH_FIRST (false): after a match on a partitionable
    /// slot, assume the schedd fills it with as many of the request's jobs
    /// as fit.
    pub depth_first: bool,
    /// MATCH_WORKING_CM_SLOTS: claimed partitionable slots with a
    /// `WorkingCM` may still be matched.
    pub match_working_cm_slots: bool,
    /// Whether the schedd offers again, in later spins, jobs already
    /// matched this cycle. A real schedd does not; a schedd whose matches
    /// are declined (pools of advertised test slots, as HTCondor's own
    /// tests and our captured snapshots use) does.
    pub resend_matched_jobs: bool,
    /// Whether the schedd offers again, in later spins, a job matched to a
    /// slot it cannot claim: one with `WantClaiming = false` or `Offline =
    /// true`, whose match carries the claim id `null` (the schedd rejects
    /// such a match and the job stays idle, as `scheduler_handleMatch`
    /// does). The live negotiator sets it: its schedds are real. Off by
    /// default, where the caller says with
    /// [`resend_matched_jobs`](Self::resend_matched_jobs) what its schedd
    /// does.
    pub resend_claimless_matches: bool,
    /// ALLOW_PSLOT_PREEMPTION (false): a job may preempt several dynamic
    /// slots of one partitionable slot at once; dynamic slots are then
    /// reached only through their parent (see the module's documentation).
    pub allow_pslot_preemption: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            consider_preemption: true,
            consider_early_preemption: false,
            matchlist_caching: true,
            ignore_user_priorities: false,
            use_slot_weights: true,
            depth_first: false,
            match_working_cm_slots: false,
            resend_matched_jobs: false,
            resend_claimless_matches: false,
            allow_pslot_preemption: false,
        }
    }
}

impl Settings {
    /// The knobs an HTCondor configuration sets.
    pub fn from_config(config: &Config) -> Result<Settings, ConfigError> {
        let flag = |name: &str, default: bool| match config.get_bool(name) {
            Ok(v) => Ok(v),
            Err(ConfigError::Undefined { .. }) => Ok(default),
            Err(e) => Err(e),
        };
        Ok(Settings {
            consider_preemption: flag("NEGOTIATOR_CONSIDER_PREEMPTION", true)?,
            consider_early_preemption: flag("NEGOTIATOR_CONSIDER_EARLY_PREEMPTION", false)?,
            matchlist_caching: flag("NEGOTIATOR_MATCHLIST_CACHING", true)?,
            ignore_user_priorities: flag("NEGOTIATOR_IGNORE_USER_PRIORITIES", false)?,
            use_slot_weights: flag("NEGOTIATOR_USE_SLOT_WEIGHTS", true)?,
            depth_first: flag("NEGOTIATOR_DEPTH_FIRST", false)?,
            match_working_cm_slots: flag("MATCH_WORKING_CM_SLOTS", false)?,
            resend_matched_jobs: false,
            resend_claimless_matches: false,
            allow_pslot_preemption: flag("ALLOW_PSLOT_PREEMPTION", false)?,
        })
    }
}

/// The negotiator: its settings and policy expressions, parsed once.
#[derive(Debug, Clone)]
pub struct Negotiator {
    /// The knobs.
    pub settings: Settings,
    /// NEGOTIATOR_PRE_JOB_RANK, NEGOTIATOR_POST_JOB_RANK, PREEMPTION_RANK.
    pub ranks: RankExprs,
    /// PREEMPTION_REQUIREMENTS (`None`: not set, which allows preemption).
    pub preemption_requirements: Option<Expr>,
    /// NEGOTIATOR_SLOT_CONSTRAINT: slots that fail it are not fetched.
    pub slot_constraint: Option<Expr>,
    /// NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT: the slots that make up the pie.
    pub poolsize_constraint: Option<Expr>,
    /// NEGOTIATOR_JOB_CONSTRAINT: requests that fail it are not negotiated.
    pub job_constraint: Option<Expr>,
    /// NEGOTIATOR_SUBMITTER_CONSTRAINT, evaluated against a submitter ad
    /// with `Name`, `ScheddName`, `IdleJobs` and `RunningJobs`.
    pub submitter_constraint: Option<Expr>,
    /// The expressions of NEGOTIATOR_MATCH_EXPRS, inserted into every slot
    /// ad as `NegotiatorMatchExpr<Name>`.
    pub match_exprs: Vec<(String, Expr)>,
    /// Concurrency-limit capacities.
    pub capacities: Capacities,
    /// Accounting groups and their quotas (GROUP_NAMES and the GROUP_*
    /// knobs); with none configured the pool negotiates as one group.
    pub groups: GroupQuotaConfig,
    /// When each group was last served a recovered remainder: kept from
    /// one cycle to the next, as HTCondor's negotiator keeps it until it
    /// is reconfigured.
    pub round_robin: RoundRobinTimes,
    /// The slot ads of the last [`cycle_shared`](Negotiator::cycle_shared),
    /// prepared, for the next.
    pub memory: CycleMemory,
}

impl Negotiator {
    /// A negotiator with HTCondor's defaults.
    pub fn new() -> Negotiator {
        // HTCondor's defaults parse; nothing here depends on input.
        Negotiator::from_config(&Config::default()).unwrap_or_else(|_| Negotiator {
            settings: Settings::default(),
            ranks: RankExprs::default(),
            preemption_requirements: None,
            slot_constraint: None,
            poolsize_constraint: None,
            job_constraint: None,
            submitter_constraint: None,
            match_exprs: Vec::new(),
            capacities: Capacities::default(),
            groups: GroupQuotaConfig::none(),
            round_robin: RoundRobinTimes::default(),
            memory: CycleMemory::default(),
        })
    }

    /// The negotiator an HTCondor configuration describes.
    pub fn from_config(config: &Config) -> Result<Negotiator, ConfigError> {
        let mut match_exprs = Vec::new();
        if let Ok(list) = config.get_string("NEGOTIATOR_MATCH_EXPRS") {
            for name in list.split(|c: char| c == ',' || c.is_whitespace()).filter(|n| !n.is_empty()) {
                if let Some(expr) = config.get_expr_opt(name)? {
                    let attr = name.strip_prefix("NEGOTIATOR_MATCH_EXPR_").unwrap_or(name);
                    match_exprs.push((format!("NegotiatorMatchExpr{attr}"), expr));
                }
            }
        }
        Ok(Negotiator {
            settings: Settings::from_config(config)?,
            ranks: RankExprs::from_config(config)?,
            preemption_requirements: config.get_expr_opt("PREEMPTION_REQUIREMENTS")?,
            slot_constraint: config.get_expr_opt("NEGOTIATOR_SLOT_CONSTRAINT")?,
            poolsize_constraint: config.get_expr_opt("NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT")?,
            job_constraint: config.get_expr_opt("NEGOTIATOR_JOB_CONSTRAINT")?,
            submitter_constraint: config.get_expr_opt("NEGOTIATOR_SUBMITTER_CONSTRAINT")?,
            match_exprs,
            capacities: Capacities::from_config(config),
            groups: GroupQuotaConfig::from_config(config)?,
            round_robin: RoundRobinTimes::default(),
            memory: CycleMemory::default(),
        })
    }

    /// The negotiator's own expressions that read job attributes (for
    /// [`significant_attributes`](crate::autocluster::significant_attributes)).
    pub fn expressions(&self) -> Vec<&Expr> {
        [
            &self.ranks.pre_job_rank,
            &self.ranks.post_job_rank,
            &self.ranks.preemption_rank,
            &self.preemption_requirements,
        ]
        .into_iter()
        .flatten()
        .chain(self.match_exprs.iter().map(|(_, e)| e))
        .collect()
    }

    /// Runs one negotiation cycle at time `now` (seconds since the epoch)
    /// on `slots` (every slot ad the collector has, claimed ones included)
    /// and `queues` (each submitter's resource requests), charging the
    /// matches to `accountant`. The cycle works on a copy of the slots
    /// (it gives them what policy expressions read, such as
    /// `RemoteUserPrio`); [`cycle_owned`](Negotiator::cycle_owned) spares
    /// the copy.
    pub fn cycle(
        &self,
        accountant: &mut Accountant,
        slots: &[classad::ClassAd],
        queues: &[SubmitterQueue],
        now: i64,
    ) -> Result<CycleOutcome, NegotiatorError> {
        cycle::run(self, accountant, slots.to_vec(), queues, now, false)
    }

    /// As [`cycle`](Negotiator::cycle), on slot ads the cycle may keep
    /// and change (as a negotiator does with the ads it fetched from the
    /// collector).
    pub fn cycle_owned(
        &self,
        accountant: &mut Accountant,
        slots: Vec<classad::ClassAd>,
        queues: &[SubmitterQueue],
        now: i64,
    ) -> Result<CycleOutcome, NegotiatorError> {
        cycle::run(self, accountant, slots, queues, now, false)
    }

    /// As [`cycle`](Negotiator::cycle), on slot ads shared behind [`Arc`],
    /// for a caller that runs cycle after cycle on a pool whose ads it
    /// keeps: a slot handed over as the same `Arc` as in the last cycle is
    /// not prepared again (see [`CycleMemory`]). A slot that changed must
    /// be a new `Arc` (an `Arc` is never changed in place while shared).
    /// The decisions are those of [`cycle`](Negotiator::cycle).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use classad::ClassAd;
    /// use matchmaker::accountant::{Accountant, AccountantConfig};
    /// use matchmaker::autocluster;
    /// use matchmaker::negotiator::Negotiator;
    ///
    /// let slot: ClassAd = r#"[ Name = "slot1@m1"; Cpus = 1; Memory = 2048; Requirements = true ]"#.parse()?;
    /// let slots = vec![Arc::new(slot)];
    /// let job: ClassAd = r#"[ Owner = "alice"; User = "alice@site"; ClusterId = 1; ProcId = 0;
    ///     JobStatus = 1; RequestMemory = 1024; Requirements = TARGET.Memory >= RequestMemory ]"#.parse()?;
    /// let queues = autocluster::queues(&[job], &["RequestMemory".to_string()]);
    /// let negotiator = Negotiator::new();
    /// let mut accountant = Accountant::new(AccountantConfig::default());
    /// let first = negotiator.cycle_shared(&mut accountant, slots.clone(), &queues, 1_700_000_000)?;
    /// assert_eq!(first.matches.len(), 1);
    /// assert_eq!(negotiator.memory.len(), 1);
    /// // The same ad again: remembered, and the same decision.
    /// let mut fresh = Accountant::new(AccountantConfig::default());
    /// let again = negotiator.cycle_shared(&mut fresh, slots, &queues, 1_700_000_000)?;
    /// assert_eq!(again.matches[0].slot, first.matches[0].slot);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cycle_shared(
        &self,
        accountant: &mut Accountant,
        slots: Vec<Arc<classad::ClassAd>>,
        queues: &[SubmitterQueue],
        now: i64,
    ) -> Result<CycleOutcome, NegotiatorError> {
        cycle::run(self, accountant, slots, queues, now, true)
    }
}

impl Default for Negotiator {
    fn default() -> Negotiator {
        Negotiator::new()
    }
}
