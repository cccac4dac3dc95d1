//! The state machine: a slot's memory ([`Slot`]) and the pure
//! [`step`] function that moves it.
//!
//! The rules follow the condor_startd's (23.x): which expressions are
//! evaluated in which state and activity, in what order, and what each
//! state does on entry (suspend the job, soft- or hard-kill it, notify
//! the schedd, ...). A change into an Idle or Retiring activity is
//! followed at once by another evaluation, as in the startd, so one step
//! can pass through several states (Claimed/Retiring -> Preempting/Vacating
//! -> Owner/Idle -> Unclaimed/Idle when a retiring job exits).

use std::sync::Arc;

use classad::{ClassAd, Clock, EvalContext, EvalOptions, Expr, Semantics, Value};

use super::claim::{Claim, Pending, VANILLA, VM};
use super::event::{Action, ActionKind, Cause, DrainHow, Event, Step, Transition};
use super::{transition_number, Activity, Policy, State};

/// Most state changes one step may make (the startd's rules always
/// settle in a few; this only guards against a policy that never does).
const MAX_CHANGES: u32 = 64;

/// A slot's memory between steps: state, activity, when they were
/// entered, the claim and its clocks, a preempting claim, draining and
/// latches. Start with [`Slot::new`] and move it with [`step`].
#[derive(Debug, Clone)]
pub struct Slot {
    state: State,
    activity: Activity,
    entered_state: i64,
    entered_activity: i64,
    claim: Option<Claim>,
    pending: Option<Pending>,
    destination: Option<State>,
    backfill_claim: Option<ClassAd>,
    draining: Option<Draining>,
    match_deadline: Option<i64>,
    last_benchmark: i64,
    was_benchmarking: bool,
    suspended_by_command: bool,
    latches: Vec<Latch>,
}

#[derive(Debug, Clone, Copy)]
struct Draining {
    how: DrainHow,
    resume: bool,
}

#[derive(Debug, Clone)]
struct Latch {
    name: String,
    value: Option<i64>,
    changed_at: Option<i64>,
}

impl Slot {
    /// A slot as the startd creates it at `now`: Owner/Idle. The first
    /// [`Event::Tick`] evaluates `IS_OWNER`.
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

    /// The slot's ad as the startd evaluates policy against it at `now`:
    /// `base` (the machine's attributes: `KeyboardIdle`, `LoadAvg`, ...),
    /// then the policy's expressions, then what the startd maintains
    /// (`State`, `Activity`, `EnteredCurrentState`,
    /// `EnteredCurrentActivity`, `MyCurrentTime`, `ClockMin`, `ClockDay`,
    /// `LastBenchmark`, `Requirements`, the latches' `<name>Value` and
    /// `<name>Time`, and while claimed `RemoteUser`, `RemoteOwner`,
    /// `JobId`, `JobStart`, `LastPeriodicCheckpoint`, `CurrentRank`).
    ///
    /// ```
    /// use classad::ClassAd;
    /// use matchmaker::startd::{Policy, Slot};
    /// let policy = Policy::parse_str("", "defaults")?;
    /// let ad = Slot::new(1_000).ad(&policy, &ClassAd::new(), 1_060);
    /// assert_eq!(ad.eval_attr("State").as_str(), Some("Owner"));
    /// assert_eq!(ad.eval_attr("EnteredCurrentState"), classad::Value::Int(1_000));
    /// # Ok::<(), matchmaker::startd::PolicyError>(())
    /// ```
    pub fn ad(&self, policy: &Policy, base: &ClassAd, now: i64) -> ClassAd {
        let mut ad = base.clone();
        ad.update(policy.ad());
        self.insert_dynamic(policy, now, &mut ad);
        ad
    }

    /// What the startd maintains, inserted into `ad`.
    fn insert_dynamic(&self, policy: &Policy, now: i64, ad: &mut ClassAd) {
        ad.insert("State", self.state.as_str());
        ad.insert("Activity", self.activity.as_str());
        ad.insert("EnteredCurrentState", self.entered_state);
        ad.insert("EnteredCurrentActivity", self.entered_activity);
        ad.insert("MyCurrentTime", now);
        let local = now.saturating_add(policy.utc_offset);
        ad.insert("ClockMin", local.rem_euclid(86_400) / 60);
        // 1970-01-01 was a Thursday (day 4, Sunday being 0).
        ad.insert("ClockDay", (local.div_euclid(86_400) + 4).rem_euclid(7));
        ad.insert("LastBenchmark", self.last_benchmark);
        let available = !matches!(self.state, State::Matched | State::Preempting | State::Drained);
        ad.insert("Requirements", if available { start_ref() } else { Expr::from(false) });
        for latch in &self.latches {
            if let Some(v) = latch.value {
                ad.insert(format!("{}Value", latch.name).as_str(), v);
            }
            if let Some(t) = latch.changed_at {
                ad.insert(format!("{}Time", latch.name).as_str(), t);
            }
        }
        if let Some(claim) = &self.claim {
            let job = &claim.job;
            let user = job.eval_attr("User");
            let owner = job.eval_attr("Owner");
            if let Some(u) = user.as_str().or(owner.as_str()) {
                ad.insert("RemoteUser", u);
            }
            if let Some(o) = owner.as_str() {
                ad.insert("RemoteOwner", o);
            }
            if let (Value::Int(c), Value::Int(p)) = (job.eval_attr("ClusterId"), job.eval_attr("ProcId")) {
                ad.insert("JobId", format!("{c}.{p}"));
            }
            if let Some(t) = claim.job_start {
                ad.insert("JobStart", t);
            }
            if let Some(t) = claim.last_checkpoint {
                ad.insert("LastPeriodicCheckpoint", t);
            }
            ad.insert("CurrentRank", claim.rank);
        }
    }
}

fn start_ref() -> Expr {
    classad::parse_expr("START").unwrap_or_else(|_| Expr::from(true))
}

/// Moves `slot` by one event at time `now` (seconds since the epoch),
/// with the policy's expressions evaluated against the slot's ad (`base`
/// plus what the startd maintains: see [`Slot::ad`]) as MY and the
/// claim's job as TARGET, with old-ClassAd semantics and `time()` and
/// `CurrentTime` equal to `now`. Timers that have expired by `now`
/// (`MATCH_TIMEOUT`, the vacate and killing timeouts) fire first. Reads no
/// clock and changes nothing but the returned slot.
///
/// ```
/// use classad::ClassAd;
/// use matchmaker::startd::{step, ActionKind, Activity, Event, Policy, Slot, State};
///
/// let policy = Policy::parse_str("use POLICY : UWCS_DESKTOP\nRunBenchmarks = False\n", "desktop.conf")?;
/// let idle: ClassAd = "[ KeyboardIdle = 3600; LoadAvg = 0.0; CondorLoadAvg = 0.0 ]".parse()?;
/// let job: ClassAd = r#"[ Owner = "alice"; JobUniverse = 5; ImageSize = 1000 ]"#.parse()?;
///
/// let s = step(&policy, &Slot::new(0), &idle, &Event::Tick, 0);
/// assert_eq!((s.slot.state(), s.slot.activity()), (State::Unclaimed, Activity::Idle));
/// let s = step(&policy, &s.slot, &idle, &Event::ClaimRequested { job }, 10);
/// let s = step(&policy, &s.slot, &idle, &Event::JobStarted { job: None }, 11);
/// assert_eq!(s.slot.activity(), Activity::Busy);
///
/// // The owner comes back: the desktop policy suspends the job.
/// let busy: ClassAd = "[ KeyboardIdle = 5; LoadAvg = 1.0; CondorLoadAvg = 1.0 ]".parse()?;
/// let s = step(&policy, &s.slot, &busy, &Event::Tick, 100);
/// assert_eq!(s.slot.activity(), Activity::Suspended);
/// assert_eq!(s.action_kinds(), [ActionKind::SuspendJob]);
/// assert_eq!(s.transitions[0].cause.knob(), Some("SUSPEND"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn step(policy: &Policy, slot: &Slot, base: &ClassAd, event: &Event, now: i64) -> Step {
    let mut fixed = base.clone();
    fixed.update(policy.ad());
    let mut run = Run {
        policy,
        fixed: Arc::new(fixed),
        now,
        options: EvalOptions::new().semantics(Semantics::Old).clock(Clock::Fixed(now)),
        slot: slot.clone(),
        transitions: Vec::new(),
        actions: Vec::new(),
        warnings: Vec::new(),
        budget: MAX_CHANGES,
    };
    run.evaluate_latches();
    run.starter_alive();
    run.timers();
    run.handle(event);
    let next_check = run.next_check();
    Step { slot: run.slot, transitions: run.transitions, actions: run.actions, next_check, warnings: run.warnings }
}

/// One step in progress.
struct Run<'a> {
    policy: &'a Policy,
    /// The machine's attributes and the policy's expressions: the part of
    /// the slot's ad that does not change during a step.
    fixed: Arc<ClassAd>,
    now: i64,
    options: EvalOptions,
    slot: Slot,
    transitions: Vec<Transition>,
    actions: Vec<Action>,
    warnings: Vec<String>,
    budget: u32,
}

/// A policy value read as a condition: true, false, or neither.
fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Int(i) => Some(*i != 0),
        Value::Real(r) => Some(*r != 0.0),
        _ => None,
    }
}

/// A policy value read as an integer.
fn integer(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Real(r) if r.is_finite() => Some(*r as i64),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

fn value_word(v: &Value) -> String {
    match truth(v) {
        Some(true) => "TRUE".into(),
        Some(false) => "FALSE".into(),
        None if v.is_undefined() => "UNDEFINED".into(),
        None if v.is_error() => "ERROR".into(),
        None => v.to_expr().to_string(),
    }
}

fn because(why: impl Into<String>) -> Cause {
    Cause::Because(why.into())
}

impl Run<'_> {
    // ----- evaluation -------------------------------------------------

    /// The slot's ad now: what the startd maintains, chained to the fixed
    /// part (so that nothing big is copied).
    fn machine_ad(&self) -> ClassAd {
        let mut ad = ClassAd::with_capacity(24);
        ad.chain_to(Arc::clone(&self.fixed));
        self.slot.insert_dynamic(self.policy, self.now, &mut ad);
        ad
    }

    /// The claim's job, when there is a claim (the startd's TARGET).
    fn job(&self) -> Option<&ClassAd> {
        self.slot.claim.as_ref().map(|c| &c.job)
    }

    /// `name` of the slot's ad, with the claim's job as TARGET.
    fn value(&self, name: &str) -> Value {
        let ad = self.machine_ad();
        self.value_in(&ad, name, self.job())
    }

    fn value_in(&self, ad: &ClassAd, name: &str, job: Option<&ClassAd>) -> Value {
        if ad.lookup(name).is_none() {
            return Value::Undefined;
        }
        let ctx = EvalContext::new(&self.options).my(ad);
        match job {
            Some(j) => ctx.target(j).eval_attr(name),
            None => ctx.eval_attr(name),
        }
    }

    /// A policy expression, with its `_VANILLA` or `_VM` form first for
    /// jobs of those universes (when that form gives true or false).
    /// Gives the value and the name that gave it.
    fn policy_value(&self, name: &str, variants: bool) -> (Value, String) {
        if variants {
            if let Some(claim) = &self.slot.claim {
                let suffix = match claim.universe {
                    VANILLA => Some("_VANILLA"),
                    VM => Some("_VM"),
                    _ => None,
                };
                if let Some(suffix) = suffix {
                    let variant = format!("{name}{suffix}");
                    let v = self.value(&variant);
                    if truth(&v).is_some() {
                        return (v, variant);
                    }
                }
            }
        }
        (self.value(name), name.to_string())
    }

    /// The cause "`name` is `value`".
    fn cause(&self, name: &str, v: &Value) -> Cause {
        let expr = self.policy.expr(name).map(|e| e.to_string()).unwrap_or_else(|| "(unset)".into());
        Cause::Expr { name: name.to_string(), expr, value: value_word(v) }
    }

    /// Evaluates a policy condition; true only when it is true.
    fn check(&self, name: &str, variants: bool) -> (Option<bool>, Cause) {
        let (v, used) = self.policy_value(name, variants);
        (truth(&v), self.cause(&used, &v))
    }

    fn is_owner(&mut self) -> (bool, Cause) {
        let (v, cause) = self.check("IsOwner", false);
        if v.is_none() {
            self.warnings.push(format!("IS_OWNER does not evaluate to a boolean ({cause}); taken as FALSE"));
        }
        (v == Some(true), cause)
    }

    fn compute_rank(&self, job: &ClassAd) -> f64 {
        let ad = self.machine_ad();
        self.value_in(&ad, "Rank", Some(job)).as_f64().unwrap_or(0.0)
    }

    fn wants_suspend(&self) -> bool {
        self.check("WANT_SUSPEND", true).0 == Some(true)
    }

    fn wants_vacate(&mut self) -> bool {
        if !self.claim_active() {
            return true; // no job: vacating is a no-op
        }
        let (v, cause) = self.check("WANT_VACATE", true);
        if v.is_none() {
            self.warnings.push(format!("WANT_VACATE does not evaluate to a boolean ({cause}); taken as TRUE"));
        }
        v != Some(false)
    }

    fn wants_hold(&self) -> (bool, Cause) {
        let (v, cause) = self.check("WANT_HOLD", false);
        (v == Some(true), cause)
    }

    fn wants_checkpoint(&self) -> (bool, Cause) {
        let Some(claim) = &self.slot.claim else { return (false, because("no claim")) };
        let ok = match claim.universe {
            VANILLA => claim.job.eval_attr("WantCheckpointSignal") == Value::Bool(true),
            VM => true,
            _ => false,
        };
        if !ok {
            return (false, because("the job takes no checkpoint signal"));
        }
        let (v, cause) = self.check("PERIODIC_CHECKPOINT", false);
        (v == Some(true), cause)
    }

    // ----- claim clocks -----------------------------------------------

    fn claim_active(&self) -> bool {
        self.slot.claim.as_ref().is_some_and(|c| c.active)
    }

    fn has_pending(&self) -> bool {
        self.slot.pending.is_some()
    }

    fn may_unretire(&self) -> bool {
        self.slot.draining.is_none() && self.slot.claim.as_ref().is_some_and(|c| c.may_unretire) && !self.has_pending()
    }

    fn in_retirement(&self) -> bool {
        self.has_pending() || !self.may_unretire()
    }

    /// The retirement time the slot grants the job (the smaller of the
    /// slot's and the job's `MaxJobRetirementTime`).
    fn granted_retirement(&self) -> i64 {
        let Some(claim) = self.slot.claim.as_ref().filter(|c| c.active) else { return 0 };
        if matches!(self.slot.draining, Some(Draining { how: DrainHow::Quick | DrainHow::Fast, .. })) {
            return 0;
        }
        let ad = self.machine_ad();
        let mut granted = integer(&self.value_in(&ad, "MaxJobRetirementTime", Some(&claim.job))).unwrap_or(0);
        if claim.job.contains("MaxJobRetirementTime") {
            let ctx = EvalContext::new(&self.options).my(&claim.job).target(&ad);
            if let Some(j) = integer(&ctx.eval_attr("MaxJobRetirementTime")) {
                granted = granted.min(j);
            }
        }
        granted
    }

    fn retirement_remaining(&self) -> i64 {
        let Some(claim) = self.slot.claim.as_ref().filter(|c| c.active) else { return 0 };
        self.granted_retirement().saturating_sub(claim.job_run_time(self.now)).max(0)
    }

    /// The vacate time the job gets: the slot's pledge, less if the job
    /// asks less (`JobMaxVacateTime`), more if it asks more and has the
    /// retirement time left to pay for it.
    fn max_vacate_time(&self) -> i64 {
        let Some(claim) = self.slot.claim.as_ref().filter(|c| c.active) else { return 0 };
        let machine = claim.pledged_vacate;
        let ad = self.machine_ad();
        let ctx = EvalContext::new(&self.options).my(&claim.job).target(&ad);
        let job = if claim.job.contains("JobMaxVacateTime") {
            integer(&ctx.eval_attr("JobMaxVacateTime")).unwrap_or(0)
        } else if claim.job.contains("KillSigTimeout") {
            integer(&ctx.eval_attr("KillSigTimeout")).unwrap_or(0)
        } else {
            machine
        };
        if job <= machine {
            return job;
        }
        let remaining = self.retirement_remaining();
        if remaining >= job {
            job
        } else if remaining > machine {
            remaining
        } else {
            machine
        }
    }

    fn retirement_expired(&self) -> bool {
        let remaining = self.retirement_remaining();
        remaining <= 0 || self.max_vacate_time() >= remaining
    }

    /// Why retirement ended.
    fn retirement_cause(&self) -> Cause {
        let draining = self.slot.draining.map(|d| d.how);
        if self.claim_active() {
            match draining {
                Some(how @ (DrainHow::Quick | DrainHow::Fast)) => {
                    because(format!("draining ({}): no retirement", format!("{how:?}").to_lowercase()))
                }
                _ => Cause::Timer { name: "MaxJobRetirementTime", seconds: self.granted_retirement() },
            }
        } else if let Some(p) = &self.slot.pending {
            because(format!(
                "preempting claim (by {}) and no job running",
                if p.by_rank { "RANK" } else { "user priority" }
            ))
        } else if draining.is_some() {
            because("draining: the idle claim ends")
        } else {
            because("no job running: nothing to retire")
        }
    }

    fn worklife(&self) -> Option<i64> {
        let claim = self.slot.claim.as_ref()?;
        if claim.activations == 0 {
            return None;
        }
        integer(&self.value("CLAIM_WORKLIFE")).filter(|w| *w >= 0)
    }

    // ----- changes ----------------------------------------------------

    fn act(&mut self, kind: ActionKind, cause: Cause) {
        self.actions.push(Action { kind, cause, after: self.transitions.len() });
    }

    /// The activity a change into Preempting takes: Vacating, unless
    /// `PREEMPT` was true and `WANT_VACATE` is false.
    fn preempting_activity(&mut self) -> Activity {
        let preempt_was_true = self.slot.claim.as_ref().is_some_and(|c| c.preempt_was_true);
        if !preempt_was_true || self.wants_vacate() {
            Activity::Vacating
        } else {
            Activity::Killing
        }
    }

    fn change_state(&mut self, s: State, cause: Cause) {
        let a = if s == State::Preempting { self.preempting_activity() } else { Activity::Idle };
        self.change(s, a, cause);
    }

    fn change_act(&mut self, a: Activity, cause: Cause) {
        self.change(self.slot.state, a, cause);
    }

    fn change(&mut self, s: State, a: Activity, cause: Cause) {
        let state_change = s != self.slot.state;
        let act_change = a != self.slot.activity;
        if !state_change && !act_change {
            return;
        }
        if self.budget == 0 {
            self.warnings.push(format!("more than {MAX_CHANGES} changes in one step: stopped before {s}/{a}"));
            return;
        }
        self.budget -= 1;
        self.leave_action(a, state_change, &cause);
        let from = (self.slot.state, self.slot.activity);
        self.transitions.push(Transition { from, to: (s, a), number: transition_number(from, (s, a)), cause });
        if state_change {
            self.slot.state = s;
            self.slot.entered_state = self.now;
            self.slot.entered_activity = self.now;
            if self.slot.destination == Some(s) {
                self.slot.destination = None;
            }
        }
        if act_change {
            self.slot.was_benchmarking = from.1 == Activity::Benchmarking;
            self.slot.activity = a;
            self.slot.entered_activity = self.now;
        }
        if self.enter_action(s, a, state_change) {
            return;
        }
        if s == State::Backfill {
            return;
        }
        if a == Activity::Retiring || a == Activity::Idle {
            self.eval_policy();
        }
    }

    /// What leaving the current state does: a suspended job is resumed
    /// first (there are no signals to fail here, so leaving never changes
    /// the state itself).
    fn leave_action(&mut self, new_a: Activity, state_change: bool, cause: &Cause) {
        if self.slot.state == State::Claimed && state_change && new_a != Activity::Vacating {
            if let Some(c) = self.slot.claim.as_mut() {
                c.lease_deadline = None;
            }
        }
        if self.slot.activity == Activity::Suspended {
            self.slot.suspended_by_command = false;
        }
        if self.slot.state == State::Claimed && self.slot.activity == Activity::Suspended && self.claim_active() {
            // Resumed before anything else (even to be vacated).
            self.act(ActionKind::ContinueJob, cause.clone());
            let now = self.now;
            if let Some(c) = self.slot.claim.as_mut() {
                c.resume(now);
            }
        }
    }

    /// What entering a state or activity does; true if it changed the
    /// state itself.
    fn enter_action(&mut self, s: State, a: Activity, state_change: bool) -> bool {
        let now = self.now;
        match s {
            State::Owner => {
                self.slot.claim = None;
                self.slot.pending = None;
                self.slot.match_deadline = None;
                let (owner, cause) = self.is_owner();
                if !owner {
                    self.change_state(State::Unclaimed, cause);
                    return true;
                }
            }
            State::Claimed => {
                if state_change {
                    self.slot.match_deadline = None;
                }
                match a {
                    Activity::Suspended => {
                        self.act(
                            ActionKind::SuspendJob,
                            self.transitions.last().map_or(because("suspend"), |t| t.cause.clone()),
                        );
                        if let Some(c) = self.slot.claim.as_mut() {
                            c.pause(now);
                        }
                    }
                    Activity::Busy => {
                        let accepted_draining = self.slot.claim.as_ref().is_some_and(|c| c.accepted_while_draining);
                        if self.in_retirement() && !accepted_draining {
                            let why = if self.has_pending() {
                                "a preempting claim is waiting"
                            } else {
                                "the claim is retiring (PREEMPT, vacate or draining)"
                            };
                            self.change_act(Activity::Retiring, because(why));
                            return true;
                        }
                    }
                    Activity::Retiring if !self.claim_active() => {
                        self.change_state(State::Preempting, because("no job running: nothing to retire"));
                        return true;
                    }
                    _ => {}
                }
            }
            State::Backfill => match a {
                Activity::Killing => self.act(ActionKind::KillBackfill, self.last_cause()),
                Activity::Idle => self.act(ActionKind::StartBackfill, self.last_cause()),
                _ => {}
            },
            State::Preempting => {
                let active = self.claim_active();
                if !active {
                    self.leave_preempting(because("no job running"));
                    return true;
                }
                let preempt_was_true = self.slot.claim.as_ref().is_some_and(|c| c.preempt_was_true);
                let (hold, hold_cause) = if preempt_was_true { self.wants_hold() } else { (false, because("")) };
                match a {
                    Activity::Killing => {
                        if hold {
                            self.act(ActionKind::HoldJob { soft: false }, hold_cause);
                        } else {
                            self.act(ActionKind::KillJob, self.last_cause());
                        }
                        let t = self.policy.killing_timeout;
                        if let Some(c) = self.slot.claim.as_mut() {
                            c.vacate_deadline = None;
                            c.kill_deadline = Some((now.saturating_add(t), t));
                        }
                    }
                    Activity::Vacating => {
                        let max = self.max_vacate_time();
                        if hold {
                            self.act(ActionKind::HoldJob { soft: true }, hold_cause);
                        } else {
                            self.act(ActionKind::VacateJob { max_vacate_time: max }, self.last_cause());
                        }
                        if let Some(c) = self.slot.claim.as_mut() {
                            c.vacate_deadline = Some((now.saturating_add(max), max));
                        }
                    }
                    _ => {}
                }
            }
            State::Unclaimed | State::Matched | State::Drained => {}
        }
        false
    }

    fn last_cause(&self) -> Cause {
        self.transitions.last().map_or(because("state change"), |t| t.cause.clone())
    }

    /// The claim's starter is gone: tell the schedd, then go to the
    /// preempting claim (if `START` does not refuse its job) or to Owner.
    fn leave_preempting(&mut self, cause: Cause) {
        if !self.slot.claim.as_ref().is_some_and(|c| c.client_gone) {
            self.act(ActionKind::ReleaseClaim, cause.clone());
        }
        self.slot.claim = None;
        if let Some(p) = self.slot.pending.take() {
            let ad = self.machine_ad();
            let start = self.value_in(&ad, "START", Some(&p.job));
            if truth(&start) == Some(false) {
                let why = self.cause("START", &start);
                self.act(ActionKind::RefuseClaim, why.clone());
                self.change_state(State::Owner, why);
            } else {
                let why = because(format!(
                    "preempting claim (by {}) takes the slot",
                    if p.by_rank { "RANK" } else { "user priority" }
                ));
                self.act(ActionKind::AcceptClaim, why.clone());
                self.slot.claim = Some(self.new_claim(p.job, p.rank));
                self.change_state(State::Claimed, why);
            }
        } else {
            self.change_state(State::Owner, cause);
        }
    }

    /// `retire_claim`: condor_vacate, PREEMPT, draining.
    fn retire_claim(&mut self, reversible: bool, cause: Cause) {
        match self.slot.state {
            State::Claimed => {
                if !reversible {
                    if let Some(c) = self.slot.claim.as_mut() {
                        c.may_unretire = false;
                    }
                }
                self.change_act(Activity::Retiring, cause);
            }
            State::Matched => self.change_state(State::Owner, cause),
            State::Backfill => self.set_destination(State::Owner, cause),
            _ => {}
        }
    }

    /// `release_claim`: the schedd lets the claim go.
    fn release_claim(&mut self, cause: Cause) {
        match self.slot.state {
            State::Claimed => self.change(State::Preempting, Activity::Vacating, cause),
            State::Preempting if self.slot.activity != Activity::Killing => {
                self.change(State::Preempting, Activity::Vacating, cause)
            }
            State::Matched => self.change_state(State::Owner, cause),
            State::Backfill => self.set_destination(State::Owner, cause),
            _ => self.warnings.push(format!("claim released in {}: nothing to release", self.slot.state)),
        }
    }

    /// `kill_claim`: condor_vacate -fast, fast draining.
    fn kill_claim(&mut self, cause: Cause) {
        match self.slot.state {
            State::Claimed | State::Preempting => self.change(State::Preempting, Activity::Killing, cause),
            State::Matched => self.change_state(State::Owner, cause),
            State::Backfill => self.set_destination(State::Owner, cause),
            _ => {}
        }
    }

    /// Heads a Backfill slot for `dest` (Owner, Matched or Claimed): at
    /// once from Backfill/Idle, else once the backfill client is killed.
    fn set_destination(&mut self, dest: State, cause: Cause) {
        self.slot.destination = Some(dest);
        if self.slot.activity == Activity::Idle {
            self.reach_destination(cause);
        } else {
            self.change_act(Activity::Killing, cause);
        }
    }

    fn reach_destination(&mut self, cause: Cause) {
        match self.slot.destination.take() {
            Some(State::Claimed) => match self.slot.backfill_claim.take() {
                Some(job) => self.accept_claim(job, cause),
                None => self.change_state(State::Owner, cause),
            },
            Some(State::Matched) => self.change_state(State::Matched, cause),
            Some(dest) => self.change_state(dest, cause),
            None => {}
        }
    }

    fn accept_claim(&mut self, job: ClassAd, cause: Cause) {
        let rank = self.compute_rank(&job);
        self.act(ActionKind::AcceptClaim, cause.clone());
        self.slot.claim = Some(self.new_claim(job, rank));
        self.slot.match_deadline = None;
        self.change_state(State::Claimed, cause);
    }

    /// A claim beginning now, its lease running.
    fn new_claim(&self, job: ClassAd, rank: f64) -> Claim {
        let lease = match job.eval_attr("JobLeaseDuration") {
            Value::Int(l) => l,
            _ => self.policy.max_claim_alives_missed.saturating_mul(self.policy.alive_interval),
        };
        let lease = if lease < 0 { 1200 } else { lease };
        let mut claim = Claim::new(job, rank, self.now);
        claim.lease = lease;
        claim
    }

    /// Once the schedd is gone, a running starter keeps the lease alive
    /// when the schedd asked for it (`StarterHandlesAlives` in the claim's
    /// job ad, which HTCondor's schedd sets).
    fn starter_alive(&mut self) {
        let handles = self
            .slot
            .claim
            .as_ref()
            .is_some_and(|c| c.active && c.job.eval_attr("StarterHandlesAlives") == Value::Bool(true));
        if handles && self.slot.state == State::Claimed {
            self.alive();
        }
    }

    /// Word from the schedd's side: a running lease starts over.
    fn alive(&mut self) {
        let now = self.now;
        if let Some(c) = self.slot.claim.as_mut() {
            if c.lease_deadline.is_some() {
                c.lease_deadline = Some(now.saturating_add(c.lease));
            }
        }
    }

    // ----- the periodic evaluation ----------------------------------------

    fn evaluate_latches(&mut self) {
        if self.slot.latches.len() != self.policy.latches.len() {
            self.slot.latches = self
                .policy
                .latches
                .iter()
                .map(|name| Latch { name: name.clone(), value: None, changed_at: None })
                .collect();
        }
        let ad = self.machine_ad();
        let ctx = EvalContext::new(&self.options).my(&ad);
        let now = self.now;
        for latch in &mut self.slot.latches {
            let v = integer(&ctx.eval_attr(latch.name.as_str()));
            if v != latch.value {
                latch.value = v;
                latch.changed_at = Some(now);
            }
        }
    }

    fn timers(&mut self) {
        let now = self.now;
        if let Some(deadline) = self.slot.match_deadline {
            if now >= deadline {
                self.slot.match_deadline = None;
                let cause = Cause::Timer { name: "MATCH_TIMEOUT", seconds: self.policy.match_timeout };
                match self.slot.state {
                    State::Matched => self.change_state(State::Owner, cause),
                    State::Backfill => self.slot.destination = Some(State::Owner),
                    _ => {}
                }
            }
        }
        if let Some(claim) = self.slot.claim.as_mut() {
            if claim.lease_deadline.is_some_and(|d| now >= d) {
                claim.lease_deadline = None;
                claim.client_gone = true;
                let seconds = claim.lease;
                self.kill_claim(Cause::Timer { name: "claim lease", seconds });
                return;
            }
        }
        if self.slot.state != State::Preempting {
            return;
        }
        let Some(claim) = self.slot.claim.as_mut() else { return };
        if let Some((deadline, seconds)) = claim.vacate_deadline {
            if now >= deadline && claim.active {
                claim.vacate_deadline = None;
                let t = self.policy.killing_timeout;
                claim.kill_deadline = Some((now.saturating_add(t), t));
                self.act(ActionKind::KillJob, Cause::Timer { name: "MachineMaxVacateTime", seconds });
                return;
            }
        }
        let Some(claim) = self.slot.claim.as_mut() else { return };
        if let Some((deadline, seconds)) = claim.kill_deadline {
            if now >= deadline && claim.active {
                claim.kill_deadline = None;
                self.act(ActionKind::KillStarter, Cause::Timer { name: "KILLING_TIMEOUT", seconds });
            }
        }
    }

    fn eval_policy(&mut self) {
        match self.slot.state {
            State::Claimed => self.eval_claimed(),
            State::Preempting => {
                if self.slot.activity == Activity::Vacating {
                    let (kill, cause) = self.check("KILL", true);
                    if kill == Some(true) {
                        self.change_act(Activity::Killing, cause);
                    }
                }
            }
            State::Unclaimed => {
                if self.slot.draining.is_some() {
                    self.change(State::Drained, Activity::Retiring, because("draining"));
                    return;
                }
                let (owner, cause) = self.is_owner();
                if owner {
                    self.change_state(State::Owner, cause);
                    return;
                }
                if self.slot.activity == Activity::Idle && !self.slot.was_benchmarking {
                    let (run, cause) = self.check("RunBenchmarks", false);
                    if run == Some(true) {
                        self.act(ActionKind::RunBenchmarks, cause.clone());
                        self.change_act(Activity::Benchmarking, cause);
                        return;
                    }
                }
                if self.policy.backfill {
                    let (start, cause) = self.check("START_BACKFILL", false);
                    if start == Some(true) {
                        self.change(State::Backfill, Activity::Idle, cause);
                    }
                }
            }
            State::Owner => {
                if self.slot.draining.is_some() {
                    self.change(State::Drained, Activity::Retiring, because("draining"));
                    return;
                }
                let (owner, cause) = self.is_owner();
                if !owner {
                    self.change_state(State::Unclaimed, cause);
                }
            }
            // Only the match timer or a claim request move a Matched slot.
            State::Matched => {}
            State::Backfill => {
                if self.slot.activity == Activity::Killing {
                    return;
                }
                let (evict, cause) = self.check("EVICT_BACKFILL", false);
                if evict == Some(true) {
                    if self.slot.activity == Activity::Idle {
                        self.change_state(State::Owner, cause);
                    } else {
                        self.slot.destination = Some(State::Owner);
                        self.change_act(Activity::Killing, cause);
                    }
                }
            }
            State::Drained => match self.slot.draining {
                None => self.change_state(State::Owner, because("draining canceled")),
                Some(d) => {
                    if self.slot.activity == Activity::Retiring {
                        self.change_act(Activity::Idle, because("draining complete"));
                    } else if d.resume {
                        self.slot.draining = None;
                        self.change_state(State::Owner, because("draining complete: resuming (resume on completion)"));
                    }
                }
            },
        }
    }

    fn eval_claimed(&mut self) {
        let act = self.slot.activity;
        if self.in_retirement() && self.retirement_expired() {
            let (preempt, _) = self.check("PREEMPT", true);
            if preempt == Some(true) {
                if let Some(c) = self.slot.claim.as_mut() {
                    c.preempt_was_true = true;
                }
            }
            let cause = self.retirement_cause();
            self.change_state(State::Preempting, cause);
            return;
        }
        let want_suspend = self.wants_suspend();
        let preempt_was_true = self.slot.claim.as_ref().is_some_and(|c| c.preempt_was_true);
        if (act == Activity::Busy && !want_suspend)
            || (act == Activity::Retiring && !preempt_was_true && !want_suspend)
            || (act == Activity::Suspended && !preempt_was_true)
        {
            let (preempt, cause) = self.check("PREEMPT", true);
            if preempt == Some(true) {
                if let Some(c) = self.slot.claim.as_mut() {
                    c.preempt_was_true = true;
                }
                self.retire_claim(false, cause);
                return;
            }
        }
        if act == Activity::Retiring {
            if self.may_unretire() {
                self.change_act(Activity::Busy, because("the preempting claim went away: unretiring"));
                return;
            }
            if self.retirement_expired() {
                let cause = self.retirement_cause();
                self.change_state(State::Preempting, cause);
                return;
            }
        }
        if (act == Activity::Busy || act == Activity::Retiring) && want_suspend {
            let (suspend, cause) = self.check("SUSPEND", true);
            if suspend == Some(true) {
                self.change_act(Activity::Suspended, cause);
                return;
            }
        }
        if act == Activity::Suspended && !self.slot.suspended_by_command {
            let (cont, cause) = self.check("CONTINUE", true);
            if cont == Some(true) {
                let to = if self.in_retirement() { Activity::Retiring } else { Activity::Busy };
                self.change_act(to, cause);
                return;
            }
        }
        if act == Activity::Busy {
            if let Some(p) = &self.slot.pending {
                let why = format!("preempting claim by {}", if p.by_rank { "RANK" } else { "user priority" });
                self.change_act(Activity::Retiring, because(why));
                return;
            }
        }
        if act == Activity::Idle {
            if let Some(p) = &self.slot.pending {
                let why = format!("preempting claim by {}", if p.by_rank { "RANK" } else { "user priority" });
                self.change_state(State::Preempting, because(why));
                return;
            }
            let (start, cause) = self.check("START", false);
            if start == Some(false) {
                self.change_state(State::Preempting, cause);
                return;
            }
            if let Some(worklife) = self.worklife() {
                let age = self.slot.claim.as_ref().map_or(0, |c| self.now.saturating_sub(c.claimed_at));
                if age > worklife {
                    self.change_state(State::Preempting, Cause::Timer { name: "CLAIM_WORKLIFE", seconds: worklife });
                    return;
                }
            }
            if self.slot.draining.is_some() {
                self.change_state(State::Preempting, because("draining"));
                return;
            }
        }
        if act == Activity::Busy || act == Activity::Retiring {
            let (ckpt, cause) = self.wants_checkpoint();
            if ckpt {
                self.act(ActionKind::Checkpoint, cause);
                let now = self.now;
                if let Some(c) = self.slot.claim.as_mut() {
                    c.last_checkpoint = Some(now);
                }
            }
        }
    }

    // ----- events -----------------------------------------------------

    fn handle(&mut self, event: &Event) {
        let now = self.now;
        match event {
            Event::Tick => self.eval_policy(),
            Event::Matched => match self.slot.state {
                State::Owner | State::Unclaimed => {
                    if self.slot.destination.is_some() {
                        return;
                    }
                    self.slot.match_deadline = Some(now.saturating_add(self.policy.match_timeout));
                    self.change_state(State::Matched, because("match notification from the negotiator"));
                }
                State::Backfill => {
                    if self.slot.destination.is_some() {
                        return;
                    }
                    self.slot.match_deadline = Some(now.saturating_add(self.policy.match_timeout));
                    self.set_destination(State::Matched, because("match notification from the negotiator"));
                }
                // A preempting match: the slot stops advertising itself
                // until the schedd claims it. A Drained slot ignores
                // matches.
                State::Claimed | State::Drained => {}
                s => self.warnings.push(format!("match notification in {s} ignored")),
            },
            Event::ClaimRequested { job } => self.claim_requested(job),
            Event::PreemptingClaimWithdrawn => {
                if self.slot.pending.take().is_some() {
                    self.eval_policy();
                }
            }
            Event::JobStarted { job } => self.activate(job.as_ref()),
            Event::JobExited => self.job_exited(),
            Event::JobUpdated { changes } => match self.slot.claim.as_mut() {
                Some(c) => c.job.update(changes),
                None => self.warnings.push(format!("job update in {}: there is no claim", self.slot.state)),
            },
            Event::ClaimReleased => self.release_claim(because("the schedd released the claim")),
            Event::SuspendClaim => {
                if self.slot.state == State::Claimed && self.claim_active() {
                    self.change_act(Activity::Suspended, because("condor_suspend"));
                    self.slot.suspended_by_command = self.slot.activity == Activity::Suspended;
                } else {
                    self.warnings.push(format!(
                        "condor_suspend in {}/{}: no job to suspend",
                        self.slot.state, self.slot.activity
                    ));
                }
            }
            Event::ContinueClaim => {
                if self.slot.activity == Activity::Suspended && self.slot.suspended_by_command {
                    self.slot.suspended_by_command = false;
                    self.change_act(Activity::Busy, because("condor_continue"));
                } else {
                    self.warnings.push("condor_continue: no job suspended by command".into());
                }
            }
            Event::ScheddGone => match self.slot.claim.as_mut() {
                Some(c) if self.slot.state == State::Claimed || self.slot.activity == Activity::Vacating => {
                    c.lease_deadline = Some(now.saturating_add(c.lease));
                }
                _ => {}
            },
            Event::Vacate { fast: false } => self.retire_claim(false, because("condor_vacate")),
            Event::Vacate { fast: true } => self.kill_claim(because("condor_vacate -fast")),
            Event::Drain { how, resume_on_completion } => {
                self.slot.draining = Some(Draining { how: *how, resume: *resume_on_completion });
                let cause = because(format!("draining ({how:?})").to_lowercase());
                match self.slot.state {
                    State::Claimed | State::Preempting if *how == DrainHow::Fast => self.kill_claim(cause),
                    State::Claimed | State::Matched | State::Backfill => {
                        self.retire_claim(false, cause);
                        if self.slot.state == State::Claimed {
                            self.eval_policy();
                        }
                    }
                    State::Owner | State::Unclaimed => self.eval_policy(),
                    _ => {}
                }
            }
            Event::CancelDrain => {
                if self.slot.draining.take().is_some() && self.slot.state == State::Drained {
                    self.eval_policy();
                }
            }
            Event::BenchmarksDone => {
                if self.slot.activity == Activity::Benchmarking {
                    self.slot.last_benchmark = now;
                    self.change_act(Activity::Idle, because("benchmarks finished"));
                }
            }
            Event::BackfillStarted => {
                if (self.slot.state, self.slot.activity) == (State::Backfill, Activity::Idle) {
                    self.change_act(Activity::Busy, because("backfill client running"));
                }
            }
            Event::BackfillExited => {
                if self.slot.state != State::Backfill || self.slot.activity == Activity::Idle {
                    self.warnings.push("backfill client exit with none running".into());
                    return;
                }
                if self.slot.destination.is_some() {
                    self.reach_destination(because("backfill client exited"));
                } else {
                    self.change_act(Activity::Idle, because("backfill client exited"));
                }
            }
        }
    }

    fn claim_requested(&mut self, job: &ClassAd) {
        match self.slot.state {
            State::Owner | State::Unclaimed | State::Matched => {
                self.accept_claim(job.clone(), because("claim request from the schedd"))
            }
            State::Backfill => {
                self.slot.backfill_claim = Some(job.clone());
                self.set_destination(State::Claimed, because("claim request from the schedd"));
            }
            State::Claimed => {
                let rank = self.compute_rank(job);
                let current = self.slot.claim.as_ref().map_or(0.0, |c| c.rank);
                let rank_cause = |what: &str| {
                    let expr = self.policy.expr("Rank").map_or_else(|| "(unset: 0)".into(), |e| e.to_string());
                    Cause::Expr { name: "RANK".into(), expr, value: what.to_string() }
                };
                if let Some(p) = &self.slot.pending {
                    if rank < p.rank {
                        let cause = rank_cause(&format!("{rank} (below the waiting preempting claim's {})", p.rank));
                        self.act(ActionKind::RefuseClaim, cause);
                        return;
                    }
                }
                if rank < current {
                    let cause = rank_cause(&format!("{rank} (below the current claim's {current})"));
                    self.act(ActionKind::RefuseClaim, cause);
                    return;
                }
                let by_rank = rank > current;
                let word = if by_rank {
                    format!("{rank} (above the current claim's {current}): preempting by RANK")
                } else {
                    format!("{rank} (equal to the current claim's): preempting by user priority")
                };
                self.act(ActionKind::AcceptClaim, rank_cause(&word));
                self.slot.pending = Some(Pending { job: job.clone(), rank, by_rank });
                self.eval_policy();
            }
            s => {
                self.act(ActionKind::RefuseClaim, because(format!("claim request in {s}")));
            }
        }
    }

    fn activate(&mut self, job: Option<&ClassAd>) {
        let now = self.now;
        if self.slot.state != State::Claimed || self.claim_active() {
            let why = format!("activation in {}/{}", self.slot.state, self.slot.activity);
            self.act(ActionKind::RefuseActivation, because(why));
            return;
        }
        let Some(claim) = self.slot.claim.as_ref() else { return };
        let job = job.cloned().unwrap_or_else(|| claim.job.clone());
        let ad = self.machine_ad();
        let start = self.value_in(&ad, "START", Some(&job));
        if truth(&start) != Some(true) {
            let cause = self.cause("START", &start);
            self.act(ActionKind::RefuseActivation, cause);
            return;
        }
        let pledged = integer(&self.value_in(&ad, "MachineMaxVacateTime", Some(&job))).unwrap_or(0);
        let rank = self.value_in(&ad, "Rank", Some(&job)).as_f64().unwrap_or(0.0);
        let universe = integer(&job.eval_attr("JobUniverse")).unwrap_or(VANILLA);
        let wants_ckpt =
            universe == VM || (universe == VANILLA && job.eval_attr("WantCheckpointSignal") == Value::Bool(true));
        let draining = self.slot.draining.is_some();
        if let Some(c) = self.slot.claim.as_mut() {
            c.job = job;
            c.rank = rank;
            c.activations += 1;
            c.job_start = Some(now);
            c.pledged_vacate = pledged;
            c.universe = universe;
            c.last_checkpoint = wants_ckpt.then_some(now);
            c.active = true;
            c.run_before = 0;
            c.running_since = Some(now);
            c.accepted_while_draining = draining;
        }
        let cause = because("claim activated by the schedd's shadow");
        self.act(ActionKind::StartJob, cause.clone());
        self.change_act(Activity::Busy, cause);
    }

    fn job_exited(&mut self) {
        let now = self.now;
        let cause = because("the job exited (starter gone)");
        match self.slot.state {
            State::Claimed => {
                if let Some(c) = self.slot.claim.as_mut() {
                    c.deactivate(now);
                }
                if self.slot.activity == Activity::Retiring {
                    self.change_state(State::Preempting, cause);
                } else {
                    self.change_act(Activity::Idle, cause);
                }
            }
            State::Preempting => {
                if let Some(c) = self.slot.claim.as_mut() {
                    c.deactivate(now);
                }
                self.leave_preempting(cause);
            }
            s => {
                self.warnings.push(format!("job exit in {s}: no job was running"));
            }
        }
    }

    // ----- the next evaluation --------------------------------------------

    fn next_check(&self) -> i64 {
        let now = self.now;
        let polled = matches!(self.slot.state, State::Claimed | State::Backfill | State::Preempting);
        let mut next =
            now.saturating_add(if polled { self.policy.polling_interval } else { self.policy.update_interval });
        let mut consider = |t: i64| {
            if t > now && t < next {
                next = t;
            }
        };
        if let Some(t) = self.slot.match_deadline {
            consider(t);
        }
        if let Some(claim) = &self.slot.claim {
            if let Some((t, _)) = claim.vacate_deadline {
                consider(t);
            }
            if let Some((t, _)) = claim.kill_deadline {
                consider(t);
            }
            if let Some(t) = claim.lease_deadline {
                consider(t);
            }
            if self.slot.state == State::Claimed
                && claim.active
                && claim.running_since.is_some()
                && self.in_retirement()
            {
                let left = self.retirement_remaining().saturating_sub(self.max_vacate_time());
                consider(now.saturating_add(left.max(1)));
            }
            if self.slot.state == State::Claimed && self.slot.activity == Activity::Idle {
                if let Some(w) = self.worklife() {
                    consider(claim.claimed_at.saturating_add(w).saturating_add(1));
                }
            }
        }
        next
    }
}
