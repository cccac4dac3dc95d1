//! One claim on a slot: its job, its rank and the times the startd keeps
//! for it (claim start, job start, run time without suspensions).

use classad::ClassAd;

/// HTCondor's vanilla universe number.
pub(crate) const VANILLA: i64 = 5;
/// HTCondor's VM universe number.
pub(crate) const VM: i64 = 13;

/// A claim: the job a schedd claimed the slot for, and its clocks.
///
/// ```
/// use classad::ClassAd;
/// use matchmaker::startd::{step, Event, Policy, Slot};
/// let policy = Policy::parse_str("RANK = Owner == \"alice\"\n", "rank.conf")?;
/// let machine = ClassAd::new();
/// let job: ClassAd = r#"[ Owner = "alice"; JobUniverse = 5 ]"#.parse()?;
/// let s = step(&policy, &Slot::new(0), &machine, &Event::ClaimRequested { job }, 0);
/// let s = step(&policy, &s.slot, &machine, &Event::JobStarted { job: None }, 10);
/// let claim = s.slot.claim().expect("claimed");
/// assert_eq!((claim.rank(), claim.activations(), claim.job_start()), (1.0, 1, Some(10)));
/// assert_eq!(claim.job_run_time(70), 60);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Claim {
    pub(crate) job: ClassAd,
    pub(crate) rank: f64,
    pub(crate) claimed_at: i64,
    pub(crate) activations: u32,
    pub(crate) job_start: Option<i64>,
    /// Seconds the current job ran before its last suspension.
    pub(crate) run_before: i64,
    /// When the job last started or resumed running (None: not running).
    pub(crate) running_since: Option<i64>,
    /// A starter is running (the claim is active).
    pub(crate) active: bool,
    pub(crate) universe: i64,
    pub(crate) last_checkpoint: Option<i64>,
    pub(crate) pledged_vacate: i64,
    pub(crate) may_unretire: bool,
    pub(crate) preempt_was_true: bool,
    /// When a soft kill turns into a hard kill (`MachineMaxVacateTime`).
    pub(crate) vacate_deadline: Option<(i64, i64)>,
    /// When a hard kill turns into killing the starter (`KILLING_TIMEOUT`).
    pub(crate) kill_deadline: Option<(i64, i64)>,
    /// The job started while the slot was draining.
    pub(crate) accepted_while_draining: bool,
    /// Seconds the claim lives without word from the schedd.
    pub(crate) lease: i64,
    /// When the claim lease runs out (None: the schedd is alive, or the
    /// lease was canceled).
    pub(crate) lease_deadline: Option<i64>,
    /// The schedd is gone (the lease expired): nobody to tell.
    pub(crate) client_gone: bool,
}

impl Claim {
    pub(crate) fn new(job: ClassAd, rank: f64, now: i64) -> Claim {
        Claim {
            job,
            rank,
            claimed_at: now,
            activations: 0,
            job_start: None,
            run_before: 0,
            running_since: None,
            active: false,
            universe: VANILLA,
            last_checkpoint: None,
            pledged_vacate: 0,
            may_unretire: true,
            preempt_was_true: false,
            vacate_deadline: None,
            kill_deadline: None,
            accepted_while_draining: false,
            lease: 0,
            lease_deadline: None,
            client_gone: false,
        }
    }

    /// The claim's job ad (the current activation's, once one started).
    pub fn job(&self) -> &ClassAd {
        &self.job
    }

    /// The slot's `RANK` for the job.
    pub fn rank(&self) -> f64 {
        self.rank
    }

    /// When the claim began.
    pub fn claimed_at(&self) -> i64 {
        self.claimed_at
    }

    /// How many jobs the claim has started.
    pub fn activations(&self) -> u32 {
        self.activations
    }

    /// When the current job started (`JobStart`).
    pub fn job_start(&self) -> Option<i64> {
        self.job_start
    }

    /// Whether a job is running (or suspended) on the claim.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Seconds the current job has run by `now`, not counting time
    /// suspended (what `MaxJobRetirementTime` is compared with).
    pub fn job_run_time(&self, now: i64) -> i64 {
        self.run_before.saturating_add(self.running_since.map_or(0, |t| now.saturating_sub(t).max(0)))
    }

    /// The claim lease (`JobLeaseDuration`, else `MAX_CLAIM_ALIVES_MISSED`
    /// times `ALIVE_INTERVAL`) and, once the schedd is gone, when it runs
    /// out.
    pub fn lease(&self) -> (i64, Option<i64>) {
        (self.lease, self.lease_deadline)
    }

    /// Whether `PREEMPT` became true during the claim (its retirement can
    /// no longer be undone, and `WANT_VACATE` decides vacate or kill).
    pub fn preempt_was_true(&self) -> bool {
        self.preempt_was_true
    }

    pub(crate) fn pause(&mut self, now: i64) {
        if let Some(t) = self.running_since.take() {
            self.run_before = self.run_before.saturating_add(now.saturating_sub(t).max(0));
        }
    }

    pub(crate) fn resume(&mut self, now: i64) {
        if self.active && self.running_since.is_none() {
            self.running_since = Some(now);
        }
    }

    /// The job is gone: the claim is idle again.
    pub(crate) fn deactivate(&mut self, now: i64) {
        self.pause(now);
        self.active = false;
        self.job_start = None;
        self.last_checkpoint = None;
        self.run_before = 0;
        self.may_unretire = true;
        self.preempt_was_true = false;
        self.vacate_deadline = None;
        self.kill_deadline = None;
    }
}

/// A preempting claim waiting for the current one to go.
#[derive(Debug, Clone)]
pub struct Pending {
    pub(crate) job: ClassAd,
    pub(crate) rank: f64,
    pub(crate) by_rank: bool,
}

impl Pending {
    /// The preempting job.
    pub fn job(&self) -> &ClassAd {
        &self.job
    }

    /// The slot's `RANK` for it.
    pub fn rank(&self) -> f64 {
        self.rank
    }

    /// Whether it preempts by machine rank (higher `RANK`) rather than by
    /// user priority (equal `RANK`).
    pub fn by_rank(&self) -> bool {
        self.by_rank
    }
}
