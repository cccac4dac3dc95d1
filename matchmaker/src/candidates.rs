//! Which slots a request may take, and in what order: the negotiator's
//! choice among the slots that match one job.
//!
//! For each slot whose `Requirements` and the job's match, the negotiator
//! decides how it could take the slot ([`ClaimKind`]: unclaimed, preempting for
//! the slot's `RANK`, or preempting for user priority) and ranks it on five
//! values, higher first, compared in order ([`Ranks`]):
//!
//! 1. `NEGOTIATOR_PRE_JOB_RANK` (slot as MY, job as TARGET),
//! 2. the job's `Rank`,
//! 3. `NEGOTIATOR_POST_JOB_RANK`,
//! 4. the claim: unclaimed before rank preemption before priority preemption,
//! 5. `PREEMPTION_RANK` (for preemptions only).
//!
//! As in HTCondor, the three negotiator expressions are read as single
//! precision (`(float)` in its code), a value that is not a number counts
//! as the lowest possible, and a job without `Rank` is ranked by the slot's.
//!
//! The seed manual's example: five slots, the first three ranks as below,
//! give slot5, slot3, slot2, slot1, slot4.
//!
//! ```
//! use classad::ClassAd;
//! use matchmaker::candidates::{ClaimKind, RankExprs};
//!
//! let exprs = RankExprs::new("MY.Pre", "MY.Post", "0")?;
//! let job: ClassAd = "[ Rank = TARGET.JobRank ]".parse()?;
//! let slots: Vec<ClassAd> = [(100, 1, 10), (100, 2, 20), (100, 2, 30), (0, 1, 40), (200, 1, 50)]
//!     .iter()
//!     .enumerate()
//!     .map(|(i, (pre, rank, post))| {
//!         format!("[ Name = \"slot{}\"; Pre = {pre}; JobRank = {rank}; Post = {post} ]", i + 1).parse()
//!     })
//!     .collect::<Result<_, _>>()?;
//! let mut ranked: Vec<_> = slots.iter().map(|s| (exprs.ranks(&job, s, ClaimKind::Unclaimed), s)).collect();
//! ranked.sort_by(|a, b| b.0.cmp_best(&a.0));
//! let order: Vec<String> = ranked.iter().map(|(_, s)| s.get("Name").map(|e| e.to_string()).unwrap_or_default()).collect();
//! assert_eq!(order, ["\"slot5\"", "\"slot3\"", "\"slot2\"", "\"slot1\"", "\"slot4\""]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::cmp::Ordering;

use classad::{ClassAd, EvalContext, EvalOptions, Expr, Semantics, Value};

/// How a request could take a slot. Ordered as the negotiator prefers them:
/// `Unclaimed > RankPreemption > PriorityPreemption`.
///
/// `#[non_exhaustive]`: ways to take a slot may be added, and code
/// outside the crate compares kinds, orders them or prints one
/// ([`MatchRecord::reason`](crate::negotiator::MatchRecord::reason)) rather
/// than handling each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ClaimKind {
    /// Preempting the slot's job because the submitter's priority is better
    /// (`PREEMPTION_REQUIREMENTS` allowed it).
    PriorityPreemption,
    /// Preempting the slot's job because the slot's `RANK` prefers this one.
    RankPreemption,
    /// The slot runs no job.
    Unclaimed,
}

/// Why a matching slot cannot be taken (counted by the negotiator as
/// rejections).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NotTaken {
    /// Preemption is not considered (NEGOTIATOR_CONSIDER_PREEMPTION is false)
    /// and the slot is claimed.
    Claimed,
    /// The slot runs a job of the same submitter and does not prefer this one.
    SameUser,
    /// `PREEMPTION_REQUIREMENTS` is not true.
    PreemptionRequirements,
    /// The slot ranks this job lower than the one it runs.
    LowerRank,
}

/// The negotiator's three ranking expressions (`None`: not set, which
/// counts as the lowest value).
#[derive(Debug, Clone, Default)]
pub struct RankExprs {
    /// NEGOTIATOR_PRE_JOB_RANK.
    pub pre_job_rank: Option<Expr>,
    /// NEGOTIATOR_POST_JOB_RANK.
    pub post_job_rank: Option<Expr>,
    /// PREEMPTION_RANK.
    pub preemption_rank: Option<Expr>,
}

/// The values a candidate slot is ranked by, as the negotiator computes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranks {
    /// NEGOTIATOR_PRE_JOB_RANK, in single precision (−f64::MAX if not a number).
    pub pre_job: f64,
    /// The job's `Rank` of the slot (0 if not a number).
    pub job: f64,
    /// NEGOTIATOR_POST_JOB_RANK, in single precision (−f64::MAX if not a number).
    pub post_job: f64,
    /// How the slot would be taken.
    pub claim: ClaimKind,
    /// PREEMPTION_RANK for a preemption (−f32::MAX when not preempting).
    pub preemption: f64,
}

/// HTCondor's value for a rank expression that does not give a number.
const FAILED_RANK: f64 = -f64::MAX;

impl RankExprs {
    /// The three expressions from their text.
    pub fn new(pre_job_rank: &str, post_job_rank: &str, preemption_rank: &str) -> Result<Self, classad::ParseError> {
        Ok(RankExprs {
            pre_job_rank: Some(pre_job_rank.parse()?),
            post_job_rank: Some(post_job_rank.parse()?),
            preemption_rank: Some(preemption_rank.parse()?),
        })
    }

    /// The expressions of an HTCondor configuration (HTCondor's defaults when
    /// it does not set them).
    pub fn from_config(config: &crate::config::Config) -> Result<Self, crate::config::ConfigError> {
        Ok(RankExprs {
            pre_job_rank: config.get_expr_opt("NEGOTIATOR_PRE_JOB_RANK")?,
            post_job_rank: config.get_expr_opt("NEGOTIATOR_POST_JOB_RANK")?,
            preemption_rank: config.get_expr_opt("PREEMPTION_RANK")?,
        })
    }

    /// The ranks of `slot` for `job`, taken as `claim` says (old
    /// semantics, the system clock).
    pub fn ranks(&self, job: &ClassAd, slot: &ClassAd, claim: ClaimKind) -> Ranks {
        let opts = EvalOptions::new().semantics(Semantics::Old);
        let job_rank = job_rank(&opts, job, slot);
        self.ranks_with(&opts, job, slot, claim, job_rank)
    }

    /// The ranks of `slot` for `job` with `opts`, the job's `Rank` of the
    /// slot already known.
    pub fn ranks_with(
        &self,
        opts: &EvalOptions,
        job: &ClassAd,
        slot: &ClassAd,
        claim: ClaimKind,
        job_rank: f64,
    ) -> Ranks {
        let on_slot = EvalContext::new(opts).my(slot).target(job);
        let negotiator = |expr: &Option<Expr>| match expr {
            Some(e) => number(&on_slot.eval(e)).map_or(FAILED_RANK, |v| f64::from(v as f32)),
            None => FAILED_RANK,
        };
        Ranks {
            pre_job: negotiator(&self.pre_job_rank),
            job: job_rank,
            post_job: negotiator(&self.post_job_rank),
            claim,
            preemption: if claim == ClaimKind::Unclaimed {
                -f64::from(f32::MAX)
            } else {
                negotiator(&self.preemption_rank)
            },
        }
    }
}

/// The job's `Rank` of the slot; a job without `Rank` takes the slot's, as
/// HTCondor's lookup does; 0 when it is not a number.
pub(crate) fn job_rank(opts: &EvalOptions, job: &ClassAd, slot: &ClassAd) -> f64 {
    let value = if job.lookup("Rank").is_some() {
        EvalContext::new(opts).my(job).target(slot).eval_attr("Rank")
    } else if slot.lookup("Rank").is_some() {
        EvalContext::new(opts).my(slot).target(job).eval_attr("Rank")
    } else {
        Value::Undefined
    };
    number(&value).unwrap_or(0.0)
}

/// A value as a number, booleans included (libclassad's `IsNumber`).
pub(crate) fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Real(r) => Some(*r),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

impl Ranks {
    /// Compares two candidates, `Greater` for the better one: the five values
    /// in order, higher first.
    pub fn cmp_best(&self, other: &Ranks) -> Ordering {
        let by = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(Ordering::Equal);
        by(self.pre_job, other.pre_job)
            .then(by(self.job, other.job))
            .then(by(self.post_job, other.post_job))
            .then(self.claim.cmp(&other.claim))
            .then(by(self.preemption, other.preemption))
    }
}

/// How `submitter`'s `job` could take a slot its `Requirements` match, or
/// why it cannot: an unclaimed slot is taken as is; a claimed one is
/// preempted for the slot's `RANK` (`MY.Rank > MY.CurrentRank`), or, when
/// another submitter runs there, for priority if `preemption_requirements`
/// holds and the slot ranks the job at least as well
/// (`MY.Rank >= MY.CurrentRank`). The one running is the slot's
/// `PreemptingAccountingGroup`, `PreemptingUser`, `AccountingGroup` or
/// `RemoteUser`, the first present. Without `consider_preemption` a claimed
/// slot is not taken (the negotiator then leaves claimed slots out of the
/// cycle altogether).
pub fn claim(
    job: &ClassAd,
    slot: &ClassAd,
    submitter: &str,
    consider_preemption: bool,
    preemption_requirements: Option<&Expr>,
) -> Result<ClaimKind, NotTaken> {
    let opts = EvalOptions::new().semantics(Semantics::Old);
    let on_slot = EvalContext::new(&opts).my(slot).target(job);
    let text = |name: &str| match on_slot.eval_attr(name) {
        Value::Str(s) => Some(s.as_str().to_string()),
        _ => None,
    };
    let running = ["PreemptingAccountingGroup", "PreemptingUser", "AccountingGroup", "RemoteUser"]
        .iter()
        .find_map(|name| text(name));
    let Some(running) = running else {
        return Ok(ClaimKind::Unclaimed);
    };
    if !consider_preemption {
        return Err(NotTaken::Claimed);
    }
    // `MY.Rank > MY.CurrentRank` and `MY.Rank >= MY.CurrentRank`, evaluated
    // as the negotiator does: anything but a true boolean is false.
    let (better, not_worse) = rank_conditions();
    let condition = |expr: &Option<Expr>| expr.as_ref().is_some_and(|e| matches!(on_slot.eval(e), Value::Bool(true)));
    if condition(better) {
        return Ok(ClaimKind::RankPreemption);
    }
    if running == submitter {
        return Err(NotTaken::SameUser);
    }
    if let Some(req) = preemption_requirements {
        if !matches!(on_slot.eval(req), Value::Bool(true)) {
            return Err(NotTaken::PreemptionRequirements);
        }
    }
    if condition(not_worse) {
        Ok(ClaimKind::PriorityPreemption)
    } else {
        Err(NotTaken::LowerRank)
    }
}

/// `MY.Rank > MY.CurrentRank` and `MY.Rank >= MY.CurrentRank`, parsed once.
fn rank_conditions() -> &'static (Option<Expr>, Option<Expr>) {
    static CONDITIONS: std::sync::OnceLock<(Option<Expr>, Option<Expr>)> = std::sync::OnceLock::new();
    CONDITIONS.get_or_init(|| ("MY.Rank > MY.CurrentRank".parse().ok(), "MY.Rank >= MY.CurrentRank".parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ad(text: &str) -> ClassAd {
        text.parse().expect("test ad")
    }

    #[test]
    fn negotiator_ranks_are_single_precision() {
        // 100000001 and 100000002 are the same float: the job's Rank decides.
        let exprs = RankExprs::new("MY.Pre", "0", "0").expect("exprs");
        let job = ad("[ Rank = TARGET.Pref ]");
        let a = exprs.ranks(&job, &ad("[ Pre = 100000002; Pref = 1 ]"), ClaimKind::Unclaimed);
        let b = exprs.ranks(&job, &ad("[ Pre = 100000001; Pref = 2 ]"), ClaimKind::Unclaimed);
        assert_eq!(a.pre_job, b.pre_job);
        assert_eq!(b.cmp_best(&a), Ordering::Greater);
    }

    #[test]
    fn failed_ranks_sort_lowest_and_booleans_are_numbers() {
        let exprs = RankExprs::new("MY.Pre", "MY.Post", "MY.Victim").expect("exprs");
        let job = ad("[ Rank = \"high\" ]");
        let r = exprs.ranks(&job, &ad("[ Pre = \"x\"; Post = true ]"), ClaimKind::Unclaimed);
        assert_eq!((r.pre_job, r.job, r.post_job), (-f64::MAX, 0.0, 1.0));
        assert_eq!(r.preemption, -f64::from(f32::MAX));
        let p = exprs.ranks(&job, &ad("[ Pre = \"x\"; Post = true; Victim = 7 ]"), ClaimKind::PriorityPreemption);
        assert_eq!(p.preemption, 7.0);
        // Same ranks: unclaimed beats rank preemption beats priority preemption.
        let k = exprs.ranks(&job, &ad("[ Pre = \"x\"; Post = true; Victim = 9 ]"), ClaimKind::RankPreemption);
        assert_eq!(r.cmp_best(&k), Ordering::Greater);
        assert_eq!(k.cmp_best(&p), Ordering::Greater);
    }

    #[test]
    fn htcondors_default_expressions() {
        let exprs = RankExprs::from_config(&crate::config::Config::default()).expect("defaults");
        let job = ad("[ Rank = 0 ]");
        let slot = ad("[ Rank = 0; Cpus = 1; Memory = 1024; SlotID = 3 ]");
        let r = exprs.ranks(&job, &slot, ClaimKind::Unclaimed);
        // (10000000 * 0) + (1000000 * true) - (100000 * 1) - 1024
        assert_eq!(r.pre_job, 898_976.0);
        // true * (1000 - 3 - 1.0e10 * false)
        assert_eq!(r.post_job, 997.0);
    }

    #[test]
    fn a_job_without_rank_takes_the_slots() {
        let exprs = RankExprs::default();
        let r = exprs.ranks(&ad("[ Memory = 4 ]"), &ad("[ Rank = TARGET.Memory * 2 ]"), ClaimKind::Unclaimed);
        assert_eq!(r.job, 8.0);
    }

    #[test]
    fn how_a_slot_can_be_taken() {
        let job = ad("[ Owner = \"bob\" ]");
        let free = ad("[ State = \"Unclaimed\" ]");
        assert_eq!(claim(&job, &free, "bob@d", true, None), Ok(ClaimKind::Unclaimed));
        let busy = |user: &str, rank: i32, current: i32| {
            ad(&format!("[ RemoteUser = \"{user}\"; Rank = {rank}; CurrentRank = {current} ]"))
        };
        assert_eq!(claim(&job, &busy("amy@d", 2, 1), "bob@d", true, None), Ok(ClaimKind::RankPreemption));
        assert_eq!(claim(&job, &busy("bob@d", 2, 1), "bob@d", true, None), Ok(ClaimKind::RankPreemption));
        assert_eq!(claim(&job, &busy("bob@d", 1, 1), "bob@d", true, None), Err(NotTaken::SameUser));
        assert_eq!(claim(&job, &busy("amy@d", 1, 1), "bob@d", true, None), Ok(ClaimKind::PriorityPreemption));
        assert_eq!(claim(&job, &busy("amy@d", 0, 1), "bob@d", true, None), Err(NotTaken::LowerRank));
        assert_eq!(claim(&job, &busy("amy@d", 1, 1), "bob@d", false, None), Err(NotTaken::Claimed));
        let never: Expr = "false".parse().expect("expr");
        assert_eq!(
            claim(&job, &busy("amy@d", 1, 1), "bob@d", true, Some(&never)),
            Err(NotTaken::PreemptionRequirements)
        );
    }
}
