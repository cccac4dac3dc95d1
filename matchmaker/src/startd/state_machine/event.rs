//! What drives a slot (events) and what a step gives back (transitions,
//! actions, their causes).

use std::fmt;

use classad::ClassAd;

use super::{Activity, State};

/// Something that happens to a slot. A [`step`](fn@super::step) handles one.
#[derive(Debug, Clone)]
pub enum Event {
    /// The startd's periodic evaluation (every `POLLING_INTERVAL` while
    /// Claimed, every `UPDATE_INTERVAL` otherwise), and the place timers
    /// expire.
    Tick,
    /// The negotiator's match notification (`MATCH_INFO`).
    Matched,
    /// A schedd's claim request for this job. On a Claimed slot this is a
    /// preempting claim: the startd accepts it if the job's `RANK` is at
    /// least the current claim's, preempting by rank when it is higher
    /// and by user priority when it is equal.
    ClaimRequested {
        /// The job (the request ad).
        job: ClassAd,
    },
    /// The preempting claim went away before the current claim retired.
    PreemptingClaimWithdrawn,
    /// The schedd's shadow activates the claim (`ACTIVATE_CLAIM`): start a
    /// job. `None` runs the claim's own job ad; `Some` runs this one (a
    /// schedd runs several jobs on a claim).
    JobStarted {
        /// The job to run, if not the claim's.
        job: Option<ClassAd>,
    },
    /// The starter exited: the job finished or was vacated or killed.
    JobExited,
    /// The starter's update of the running job's ad (`ImageSize`,
    /// `JobState`, ...): these attributes are merged into the claim's job
    /// ad, which policy expressions see as TARGET from then on. Nothing is
    /// evaluated until the next [`Event::Tick`].
    JobUpdated {
        /// The attributes that changed.
        changes: ClassAd,
    },
    /// `condor_suspend`: the job is suspended until `condor_continue`
    /// (`CONTINUE` is not evaluated for it).
    SuspendClaim,
    /// `condor_continue`: a job suspended by command resumes.
    ContinueClaim,
    /// The schedd releases the claim (`RELEASE_CLAIM`).
    ClaimReleased,
    /// The schedd stopped answering keep-alives (it is gone, or the
    /// network is). Until this event the schedd is taken as alive, as a
    /// running schedd keeps its claims' leases; from it, the claim lease
    /// runs out after its duration (unless the job's starter keeps it,
    /// `StarterHandlesAlives`), and then the startd kills the claim.
    ScheddGone,
    /// `condor_vacate`: gracefully (retirement, then vacating) or fast
    /// (kill at once).
    Vacate {
        /// `condor_vacate -fast`.
        fast: bool,
    },
    /// `condor_drain` or `condor_defrag` starts draining the machine.
    Drain {
        /// How running jobs are treated.
        how: DrainHow,
        /// Return to service once drained (`-resume-on-completion`).
        resume_on_completion: bool,
    },
    /// Draining is canceled (`condor_drain -cancel`).
    CancelDrain,
    /// The benchmarks the slot started finished.
    BenchmarksDone,
    /// The backfill client (BOINC) is running.
    BackfillStarted,
    /// The backfill client exited.
    BackfillExited,
}

/// How `condor_drain` treats running jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrainHow {
    /// Jobs retire (up to `MaxJobRetirementTime`), then vacate.
    Graceful,
    /// Jobs vacate now (no retirement).
    Quick,
    /// Jobs are killed now.
    Fast,
}

/// What the startd does to the job, the schedd or the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    /// A claim request is accepted.
    AcceptClaim,
    /// A claim request is refused.
    RefuseClaim,
    /// An activation is accepted: spawn the starter, run the job.
    StartJob,
    /// An activation is refused.
    RefuseActivation,
    /// Suspend the job (`SIGSTOP`).
    SuspendJob,
    /// Resume the suspended job.
    ContinueJob,
    /// Ask the job to exit (soft kill: `SIGTERM`), allowing
    /// `max_vacate_time` seconds before a hard kill.
    VacateJob {
        /// Seconds the job gets to exit.
        max_vacate_time: i64,
    },
    /// Kill the job (`SIGKILL` through the starter).
    KillJob,
    /// The starter did not exit `KILLING_TIMEOUT` seconds after a hard
    /// kill: kill the starter and its children.
    KillStarter,
    /// Put the job on hold instead of evicting it (`WANT_HOLD`).
    HoldJob {
        /// Soft (the job may shut down) or hard.
        soft: bool,
    },
    /// Periodic checkpoint (`PERIODIC_CHECKPOINT`).
    Checkpoint,
    /// Tell the schedd its claim is gone.
    ReleaseClaim,
    /// Run the benchmarks.
    RunBenchmarks,
    /// Spawn the backfill client.
    StartBackfill,
    /// Kill the backfill client.
    KillBackfill,
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionKind::VacateJob { max_vacate_time } => write!(f, "VacateJob({max_vacate_time} s)"),
            ActionKind::HoldJob { soft: true } => f.write_str("HoldJob(soft)"),
            ActionKind::HoldJob { soft: false } => f.write_str("HoldJob(hard)"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// Why a transition or action happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Cause {
    /// A policy expression's value: its name as evaluated (`PREEMPT`,
    /// `SUSPEND_VANILLA`, `IsOwner`...), its text and the value.
    Expr {
        /// The expression's name.
        name: String,
        /// Its text.
        expr: String,
        /// Its value (`TRUE`, `FALSE`, `UNDEFINED`, ...).
        value: String,
    },
    /// A timer: `MATCH_TIMEOUT`, `MaxJobRetirementTime`,
    /// `MachineMaxVacateTime`, `KILLING_TIMEOUT`, `CLAIM_WORKLIFE`.
    Timer {
        /// The knob.
        name: &'static str,
        /// Its length in seconds.
        seconds: i64,
    },
    /// An event or a rule of the state machine, in words.
    Because(String),
}

impl Cause {
    /// The expression or knob name, if the cause is one.
    ///
    /// ```
    /// use matchmaker::startd::Cause;
    /// assert_eq!(Cause::Timer { name: "MATCH_TIMEOUT", seconds: 120 }.knob(), Some("MATCH_TIMEOUT"));
    /// ```
    pub fn knob(&self) -> Option<&str> {
        match self {
            Cause::Expr { name, .. } => Some(name),
            Cause::Timer { name, .. } => Some(name),
            Cause::Because(_) => None,
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Expr { name, expr, value } => write!(f, "{name} is {value}: {expr}"),
            Cause::Timer { name, seconds } => write!(f, "{name} expired ({seconds} s)"),
            Cause::Because(why) => f.write_str(why),
        }
    }
}

/// A change of state or activity.
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    /// State and activity before.
    pub from: (State, Activity),
    /// State and activity after.
    pub to: (State, Activity),
    /// The manual's number for this transition, if it has one.
    pub number: Option<u8>,
    /// Why.
    pub cause: Cause,
}

impl fmt::Display for Transition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{} -> {}/{}", self.from.0, self.from.1, self.to.0, self.to.1)?;
        if let Some(n) = self.number {
            write!(f, " (#{n})")?;
        }
        write!(f, ": {}", self.cause)
    }
}

/// Something the startd does, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    /// What.
    pub kind: ActionKind,
    /// Why.
    pub cause: Cause,
    /// How many of the step's transitions came before it (to put actions
    /// and transitions back in one order).
    pub after: usize,
}

/// What one [`Slot::advance`](super::Slot::advance) did: a [`Step`](super::Step)
/// without the slot, which changed in place.
///
/// ```
/// use std::sync::Arc;
/// use classad::ClassAd;
/// use matchmaker::startd::{Activity, Event, Policy, PolicyAd, Slot, State};
/// let policy = Policy::parse_str("MATCH_TIMEOUT = 60\n", "m.conf")?;
/// let mut ad = PolicyAd::new(&policy, Arc::new(ClassAd::new()));
/// let mut slot = Slot::new(0);
/// let out = slot.advance(&policy, &mut ad, &Event::Matched, 0);
/// assert_eq!(out.path(), [(State::Matched, Activity::Idle)]);
/// assert_eq!(out.next_check, 60);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The changes of state or activity, in order.
    pub transitions: Vec<Transition>,
    /// The actions, in order.
    pub actions: Vec<Action>,
    /// When the startd would next evaluate this slot (see
    /// [`Step::next_check`](super::Step::next_check)).
    pub next_check: i64,
    /// Things the real startd logs as errors.
    pub warnings: Vec<String>,
}

impl Outcome {
    /// The action kinds, in order.
    pub fn action_kinds(&self) -> Vec<ActionKind> {
        self.actions.iter().map(|a| a.kind).collect()
    }

    /// The state/activity pairs entered, in order.
    pub fn path(&self) -> Vec<(State, Activity)> {
        self.transitions.iter().map(|t| t.to).collect()
    }
}
