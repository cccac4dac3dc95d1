//! What a negotiation cycle decided: matches, rejections, per-submitter
//! figures and the cycle's statistics.

use std::fmt;

use crate::autocluster::JobId;
use crate::candidates::ClaimKind;

/// One match: a request of a submitter given a slot.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchRecord {
    /// The submitter.
    pub submitter: String,
    /// The request's representative job (the schedd picks the actual job).
    pub job: JobId,
    /// The request's autocluster.
    pub autocluster: u32,
    /// The slot's `Name`.
    pub slot: String,
    /// The slot's position in the cycle's input.
    pub slot_index: usize,
    /// How the slot is taken.
    pub claim: ClaimKind,
    /// Who is preempted (`None` for an unclaimed slot; for a partitionable
    /// slot taken with its dynamic slots, their users, comma-separated).
    pub preempting: Option<String>,
    /// With `ALLOW_PSLOT_PREEMPTION`, the dynamic slots of the matched
    /// partitionable slot that the match preempts, by `Name`, in the order
    /// the negotiator took them (empty for any other match).
    pub preempted_dynamic_slots: Vec<String>,
    /// What the match costs the submitter (slot weight).
    pub cost: f64,
    /// The pie spin it was made in (1 is the first; 0 is the floor round).
    pub spin: u32,
}

/// Why a request found no slot, in HTCondor's words (`Display`).
#[derive(Debug, Clone, PartialEq, Eq)]
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
pub struct Rejection {
    /// The submitter.
    pub submitter: String,
    /// The request's representative job.
    pub job: JobId,
    /// The request's autocluster.
    pub autocluster: u32,
    /// Why.
    pub reason: RejectReason,
    /// The pie spin (1 is the first; 0 is the floor round).
    pub spin: u32,
}

/// Why the negotiator stopped serving a submitter this cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    NotReached,
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
#[derive(Debug, Clone, PartialEq)]
pub struct SubmitterReport {
    /// The submitter.
    pub name: String,
    /// Its effective priority.
    pub eup: f64,
    /// Its priority factor.
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

/// The cycle's statistics, as HTCondor publishes them in the negotiator ad
/// (`LastNegotiationCycle*`), plus a few of our own.
#[derive(Debug, Clone, Default, PartialEq)]
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
    pub jobs_considered: u64,
    /// Idle jobs of the submitters negotiated with (`NumIdleJobs`).
    pub idle_jobs: u64,
    /// Submitters negotiated with (`ActiveSubmitterCount`).
    pub active_submitters: usize,
    /// Submitters stopped by their share (`SubmittersShareLimit`), in order.
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

impl CycleOutcome {
    /// How many matches `submitter` got.
    pub fn matches_of(&self, submitter: &str) -> usize {
        self.matches.iter().filter(|m| m.submitter == submitter).count()
    }
}
