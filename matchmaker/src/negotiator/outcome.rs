//! What a negotiation cycle decided: matches, rejections, per-submitter
//! figures and the cycle's statistics.
//!
//! With the `serde` feature these types are `Serialize`, in the form
//! `negotiator-sim cycle --json` prints: reasons and stop causes in
//! HTCondor's words, job ids as `cluster.proc`, the statistics under their
//! `LastNegotiationCycle*` names (without the prefix).

use std::fmt;

use crate::autocluster::JobId;
use crate::candidates::ClaimKind;

/// One match: a request of a submitter given a slot.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct MatchRecord {
    /// The submitter.
    pub submitter: String,
    /// The request's representative job (the schedd picks the actual job).
    #[cfg_attr(feature = "serde", serde(serialize_with = "display"))]
    pub job: JobId,
    /// The request's autocluster.
    pub autocluster: u32,
    /// The slot's `Name`.
    pub slot: String,
    /// The slot's position in the cycle's input.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub slot_index: usize,
    /// How the slot is taken (`reason` in JSON, in HTCondor's words).
    #[cfg_attr(feature = "serde", serde(rename = "reason", serialize_with = "serialize_claim"))]
    pub claim: ClaimKind,
    /// Who is preempted (`None` for an unclaimed slot; for a partitionable
    /// slot taken with its dynamic slots, their users, comma-separated).
    pub preempting: Option<String>,
    /// With `ALLOW_PSLOT_PREEMPTION`, the dynamic slots of the matched
    /// partitionable slot that the match preempts, by `Name`, in the order
    /// the negotiator took them (empty for any other match, and then not
    /// serialized).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub preempted_dynamic_slots: Vec<String>,
    /// What the match costs the submitter (slot weight).
    pub cost: f64,
    /// The pie spin it was made in (1 is the first; 0 is the floor round).
    pub spin: u32,
}

impl MatchRecord {
    /// How the slot is taken, in HTCondor's words (`no preemption`, `rank
    /// preemption`, `priority preemption`).
    pub fn reason(&self) -> &'static str {
        claim_name(self.claim)
    }
}

/// Why a request found no slot, in HTCondor's words (`Display`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RejectReason {
    /// No slot matches (or every matching one is taken).
    NoMatch,
    /// Matching slots exist but the submitter's limit leaves no room.
    SubmitterLimit,
    /// These concurrency limits are at their capacity.
    ConcurrencyLimit(Vec<String>),
    /// Claimed slots matched but `PREEMPTION_REQUIREMENTS` was false.
    PreemptionRequirements,
    /// The submitter's priority is not good enough to preempt.
    InsufficientPriority,
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RejectReason::NoMatch => f.write_str("no match found"),
            RejectReason::SubmitterLimit => f.write_str("submitter limit exceeded"),
            RejectReason::ConcurrencyLimit(names) => write!(f, "concurrency limit {} reached", names.join(", ")),
            RejectReason::PreemptionRequirements => f.write_str("PREEMPTION_REQUIREMENTS == False"),
            RejectReason::InsufficientPriority => f.write_str("insufficient priority"),
        }
    }
}

/// One rejected request.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Rejection {
    /// The submitter.
    pub submitter: String,
    /// The request's representative job.
    #[cfg_attr(feature = "serde", serde(serialize_with = "display"))]
    pub job: JobId,
    /// The request's autocluster.
    pub autocluster: u32,
    /// Why.
    pub reason: RejectReason,
    /// The pie spin (1 is the first; 0 is the floor round).
    pub spin: u32,
}

/// Why the negotiator stopped serving a submitter this cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Stopped {
    /// It had no idle jobs.
    NoIdleJobs,
    /// Every request was served or rejected.
    GotAll,
    /// Its share of the pool was used up.
    ShareLimit,
    /// Its ceiling was reached.
    Ceiling,
    /// It was not reached (the cycle ran out of slots or pie first).
    #[default]
    NotReached,
}

#[cfg(feature = "serde")]
impl serde::Serialize for RejectReason {
    /// In HTCondor's words, as `Display` writes it.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stopped::NoIdleJobs => "no idle jobs",
            Stopped::GotAll => "got all it wanted",
            Stopped::ShareLimit => "share limit",
            Stopped::Ceiling => "ceiling",
            Stopped::NotReached => "not reached",
        })
    }
}

/// One submitter's figures.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct SubmitterReport {
    /// The submitter.
    pub name: String,
    /// Its effective priority.
    #[cfg_attr(feature = "serde", serde(rename = "effective_priority"))]
    pub eup: f64,
    /// Its priority factor.
    #[cfg_attr(feature = "serde", serde(rename = "priority_factor"))]
    pub factor: f64,
    /// Its share of the pool in the first spin.
    pub share: f64,
    /// Its share times the pool's slot weight (HTCondor's `SubmitterLimit`).
    pub limit: f64,
    /// Weighted usage when the cycle began.
    pub usage_before: f64,
    /// Weighted usage when it ended.
    pub usage_after: f64,
    /// Idle jobs it offered.
    pub idle_jobs: u64,
    /// Matches made.
    pub matches: u32,
    /// Requests rejected.
    pub rejections: u32,
    /// Why it stopped.
    pub stopped: Stopped,
}

impl SubmitterReport {
    /// What happened to the submitter, in words an administrator reads
    /// correctly: why the negotiator stopped serving it, with its matches
    /// against its idle jobs and its rejections, and, when it got more
    /// matches than it has idle jobs, why that can be (its schedd offered
    /// jobs matched in an earlier spin again). `negotiator-sim cycle`'s
    /// table prints it.
    ///
    /// ```
    /// use matchmaker::negotiator::{Stopped, SubmitterReport};
    /// let mut r = SubmitterReport::default();
    /// (r.idle_jobs, r.matches, r.rejections, r.stopped) = (250, 228, 4, Stopped::GotAll);
    /// assert_eq!(r.summary(), "every request tried: 228 of 250 idle jobs matched, 4 requests rejected");
    /// ```
    pub fn summary(&self) -> String {
        let (matched, idle) = (u64::from(self.matches), self.idle_jobs);
        let of = if matched > idle {
            format!("{matched} matches for {idle} idle jobs (jobs matched in an earlier spin were offered again)")
        } else if matched == idle && idle > 0 {
            format!("all {idle} idle jobs matched")
        } else {
            format!("{matched} of {idle} idle jobs matched")
        };
        let rejected = match self.rejections {
            0 => String::new(),
            1 => ", 1 request rejected".to_string(),
            n => format!(", {n} requests rejected"),
        };
        match self.stopped {
            Stopped::NoIdleJobs => "no idle jobs".to_string(),
            Stopped::GotAll if self.rejections == 0 && matched >= idle => of,
            Stopped::GotAll => format!("every request tried: {of}{rejected}"),
            Stopped::ShareLimit => format!("its share of the pool ran out: {of}{rejected}"),
            Stopped::Ceiling => format!("its ceiling was reached: {of}{rejected}"),
            Stopped::NotReached => format!("not reached (the pool ran out first): {of}{rejected}"),
        }
    }
}

/// The cycle's statistics, as HTCondor publishes them in the negotiator ad
/// (`LastNegotiationCycle*`), plus a few of our own.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "PascalCase"))]
#[non_exhaustive]
pub struct CycleStats {
    /// Slots received (`TotalSlots`).
    pub total_slots: usize,
    /// Slots left after trimming (`TrimmedSlots`).
    pub trimmed_slots: usize,
    /// Slots matching could consider (`CandidateSlots`).
    pub candidate_slots: usize,
    /// The pool's slot weight, claimed slots included.
    pub slot_weight_total: f64,
    /// The smallest slot weight.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub min_slot_weight: f64,
    /// Matches (`Matches`).
    pub matches: usize,
    /// Rejections (`Rejections`).
    pub rejections: usize,
    /// Pies negotiated (`Pies`: one per group round, and the floor round).
    pub pies: u32,
    /// Pie spins (`PieSpins`).
    pub pie_spins: u32,
    /// Requests considered (`NumJobsConsidered`).
    #[cfg_attr(feature = "serde", serde(rename = "NumJobsConsidered"))]
    pub jobs_considered: u64,
    /// Idle jobs of the submitters negotiated with (`NumIdleJobs`).
    #[cfg_attr(feature = "serde", serde(rename = "NumIdleJobs"))]
    pub idle_jobs: u64,
    /// Submitters negotiated with (`ActiveSubmitterCount`).
    #[cfg_attr(feature = "serde", serde(rename = "ActiveSubmitterCount"))]
    pub active_submitters: usize,
    /// Submitters stopped by their share (`SubmittersShareLimit`), in order
    /// (serialized comma-separated, as HTCondor publishes it).
    #[cfg_attr(feature = "serde", serde(serialize_with = "comma_separated"))]
    pub submitters_share_limit: Vec<String>,
    /// Match lists built (one per autocluster and spin with caching).
    pub match_lists: u64,
    /// Seconds spent in phase 2 (accounting and preparing) and phase 4
    /// (matchmaking): not part of the decisions, and not compared.
    pub phase2_seconds: f64,
    /// See `phase2_seconds`.
    pub phase4_seconds: f64,
}

/// Everything one cycle decided.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct CycleOutcome {
    /// The matches, in the order they were made.
    pub matches: Vec<MatchRecord>,
    /// The rejected requests, in order.
    pub rejections: Vec<Rejection>,
    /// Per submitter, in negotiation order.
    pub submitters: Vec<SubmitterReport>,
    /// The cycle's statistics.
    pub stats: CycleStats,
    /// With group quotas: each group's figures, breadth first from `<none>`
    /// (empty without groups).
    pub groups: Vec<super::GroupReport>,
    /// With group quotas: each allocation round's totals.
    pub group_rounds: Vec<super::GroupRoundTotals>,
}

#[cfg(feature = "serde")]
impl serde::Serialize for Stopped {
    /// In words, as `Display` writes it.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl CycleOutcome {
    /// How many matches `submitter` got.
    pub fn matches_of(&self, submitter: &str) -> usize {
        self.matches.iter().filter(|m| m.submitter == submitter).count()
    }
}

/// A value as its `Display` form (job ids as `cluster.proc`).
#[cfg(feature = "serde")]
fn display<T: fmt::Display, S: serde::Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// HTCondor's name of a way to take a slot.
fn claim_name(claim: ClaimKind) -> &'static str {
    match claim {
        ClaimKind::Unclaimed => "no preemption",
        ClaimKind::RankPreemption => "rank preemption",
        ClaimKind::PriorityPreemption => "priority preemption",
    }
}

/// `claim_name` for serde.
#[cfg(feature = "serde")]
fn serialize_claim<S: serde::Serializer>(claim: &ClaimKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(claim_name(*claim))
}

/// Names joined by `", "`, as the negotiator ad lists them.
#[cfg(feature = "serde")]
fn comma_separated<S: serde::Serializer>(names: &[String], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&names.join(", "))
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    /// The serialized form names things as `negotiator-sim cycle --json`
    /// prints them: the claim in words, the job as `cluster.proc`, no slot
    /// index, and preempted dynamic slots only when there are some.
    #[test]
    fn a_match_serializes_as_the_cycle_command_prints_it() {
        let m = MatchRecord {
            submitter: "alice@pool".into(),
            job: JobId { cluster: 12, proc: 3 },
            autocluster: 7,
            slot: "slot1@host".into(),
            slot_index: 4,
            claim: ClaimKind::RankPreemption,
            preempting: Some("bob@pool".into()),
            preempted_dynamic_slots: Vec::new(),
            cost: 1.0,
            spin: 1,
        };
        let v = serde_json::to_value(&m).expect("serializes");
        assert_eq!(
            v,
            serde_json::json!({
                "submitter": "alice@pool", "job": "12.3", "autocluster": 7, "slot": "slot1@host",
                "reason": "rank preemption", "preempting": "bob@pool", "cost": 1.0, "spin": 1,
            })
        );
        let stats = CycleStats { submitters_share_limit: vec!["a".into(), "b".into()], ..CycleStats::default() };
        let v = serde_json::to_value(&stats).expect("serializes");
        assert_eq!(v["SubmittersShareLimit"], "a, b");
        assert_eq!(v["NumJobsConsidered"], 0);
        assert!(v.get("MinSlotWeight").is_none());
        let r = serde_json::to_value(RejectReason::ConcurrencyLimit(vec!["db".into()])).expect("serializes");
        assert_eq!(r, "concurrency limit db reached");
    }
}
