//! What the startd remembers about a slot between evaluations: its state
//! and activity, when they were entered, the claim and its clocks, a
//! preempting claim, draining and latches.

use classad::{ClassAd, Name};

use super::claim::{Claim, Pending};
use super::event::DrainHow;
use super::{Activity, State};

/// A slot's memory between steps: state, activity, when they were
/// entered, the claim and its clocks, a preempting claim, draining and
/// latches. Start with [`Slot::new`] and move it with [`step`](fn@super::step).
#[derive(Debug, Clone)]
pub struct Slot {
    pub(super) state: State,
    pub(super) activity: Activity,
    pub(super) entered_state: i64,
    pub(super) entered_activity: i64,
    pub(super) claim: Option<Claim>,
    pub(super) pending: Option<Pending>,
    pub(super) destination: Option<State>,
    pub(super) backfill_claim: Option<ClassAd>,
    pub(super) draining: Option<Draining>,
    pub(super) match_deadline: Option<i64>,
    pub(super) last_benchmark: i64,
    pub(super) was_benchmarking: bool,
    pub(super) suspended_by_command: bool,
    pub(super) latches: Vec<Latch>,
    /// Counts the changes of the latches' values (so that a [`PolicyAd`](super::PolicyAd)
    /// knows when to publish them again).
    pub(super) latch_changes: u64,
    /// Counts the changes of the claim or its job ad (the same for the
    /// `RemoteUser`, `RemoteOwner` and `JobId` a [`PolicyAd`](super::PolicyAd) publishes).
    pub(super) claim_changes: u64,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Draining {
    pub(super) how: DrainHow,
    pub(super) resume: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Latch {
    pub(super) name: Name,
    /// `<name>Value`.
    pub(super) value_name: Name,
    /// `<name>Time`.
    pub(super) time_name: Name,
    pub(super) value: Option<i64>,
    pub(super) changed_at: Option<i64>,
}

impl Slot {
    /// A slot as the startd creates it at `now`: Owner/Idle. The first
    /// [`Event::Tick`](super::Event::Tick) evaluates `IS_OWNER`.
    ///
    /// ```
    /// use matchmaker::startd::{Activity, Slot, State};
    /// let slot = Slot::new(1_700_000_000);
    /// assert_eq!((slot.state(), slot.activity()), (State::Owner, Activity::Idle));
    /// assert_eq!(slot.entered_state(), 1_700_000_000);
    /// assert!(slot.claim().is_none());
    /// ```
    pub fn new(now: i64) -> Slot {
        Slot {
            state: State::Owner,
            activity: Activity::Idle,
            entered_state: now,
            entered_activity: now,
            claim: None,
            pending: None,
            destination: None,
            backfill_claim: None,
            draining: None,
            match_deadline: None,
            last_benchmark: 0,
            was_benchmarking: false,
            suspended_by_command: false,
            latches: Vec::new(),
            latch_changes: 0,
            claim_changes: 0,
        }
    }

    /// The state.
    pub fn state(&self) -> State {
        self.state
    }

    /// The activity.
    pub fn activity(&self) -> Activity {
        self.activity
    }

    /// When the state was entered (`EnteredCurrentState`).
    pub fn entered_state(&self) -> i64 {
        self.entered_state
    }

    /// When the activity was entered (`EnteredCurrentActivity`).
    pub fn entered_activity(&self) -> i64 {
        self.entered_activity
    }

    /// The current claim (Claimed and Preempting).
    pub fn claim(&self) -> Option<&Claim> {
        self.claim.as_ref()
    }

    /// The preempting claim waiting for the current one to go.
    pub fn preempting_claim(&self) -> Option<&Pending> {
        self.pending.as_ref()
    }

    /// Whether the slot is being drained.
    pub fn is_draining(&self) -> bool {
        self.draining.is_some()
    }

    /// When the slot last finished benchmarks (`LastBenchmark`; 0 never).
    pub fn last_benchmark(&self) -> i64 {
        self.last_benchmark
    }

    /// Replaces the claim.
    pub(super) fn set_claim(&mut self, claim: Option<Claim>) {
        self.claim = claim;
        self.claim_changes += 1;
    }
}
