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

use std::cell::Ref;

use classad::{ClassAd, Clock, EvalContext, EvalOptions, Name, Semantics, Value};

use super::claim::{Claim, VANILLA, VM};
use super::event::{Action, ActionKind, Cause, DrainHow, Event, Outcome, Transition};
use super::memory::{Draining, Slot};
use super::names::{names, Knob};
use super::policy_ad::PolicyAd;
use super::{transition_number, Activity, Policy, State};

mod events;
mod periodic;

/// Most state changes one step may make (the startd's rules always
/// settle in a few; this only guards against a policy that never does).
const MAX_CHANGES: u32 = 64;

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
    let mut slot = slot.clone();
    let mut ad = PolicyAd::copied(policy, base);
    let Outcome { transitions, actions, next_check, warnings } = slot.advance(policy, &mut ad, event, now);
    Step { slot, transitions, actions, next_check, warnings }
}

/// The result of one [`step`](fn@step).
///
/// ```
/// use classad::ClassAd;
/// use matchmaker::startd::{step, Activity, Event, Policy, Slot, State};
/// let policy = Policy::parse_str("MATCH_TIMEOUT = 60\n", "m.conf")?;
/// let s = step(&policy, &Slot::new(0), &ClassAd::new(), &Event::Matched, 0);
/// assert_eq!(s.path(), [(State::Matched, Activity::Idle)]);
/// assert_eq!(s.next_check, 60); // the match timeout, before the next poll
/// let s = step(&policy, &s.slot, &ClassAd::new(), &Event::Tick, 60);
/// assert_eq!(s.transitions[0].cause.to_string(), "MATCH_TIMEOUT expired (60 s)");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Step {
    /// The slot after the step.
    pub slot: Slot,
    /// The changes of state or activity, in order.
    pub transitions: Vec<Transition>,
    /// The actions, in order.
    pub actions: Vec<Action>,
    /// When the startd would next evaluate this slot: the next poll, or an
    /// earlier timer (match timeout, end of retirement, vacate or killing
    /// timeout, claim worklife).
    pub next_check: i64,
    /// Things the real startd logs as errors (an `IS_OWNER` that does not
    /// evaluate, an event that makes no sense in the slot's state).
    pub warnings: Vec<String>,
}

impl Step {
    /// The action kinds, in order (handy in tests).
    pub fn action_kinds(&self) -> Vec<ActionKind> {
        self.actions.iter().map(|a| a.kind).collect()
    }

    /// The state/activity pairs entered, in order.
    pub fn path(&self) -> Vec<(State, Activity)> {
        self.transitions.iter().map(|t| t.to).collect()
    }
}

impl Slot {
    /// Moves the slot in place by one event at time `now`, as [`step`]
    /// does, with the policy evaluated against `ad` (this slot's
    /// [`PolicyAd`], kept from step to step: only what changed is
    /// written into it).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use classad::{ClassAd, Name};
    /// use matchmaker::startd::{ActionKind, Activity, Event, Policy, PolicyAd, Slot};
    ///
    /// let policy = Policy::parse_str("use POLICY : UWCS_DESKTOP\nRunBenchmarks = False\n", "desktop.conf")?;
    /// let machine: ClassAd = "[ LoadAvg = 0.0; CondorLoadAvg = 0.0 ]".parse()?;
    /// let job: ClassAd = r#"[ Owner = "alice"; JobUniverse = 5; ImageSize = 1000 ]"#.parse()?;
    /// let mut ad = PolicyAd::new(&policy, Arc::new(machine));
    /// ad.set(&policy, Name::new("KeyboardIdle"), 3600);
    /// let mut slot = Slot::new(0);
    /// for (t, event) in [(0, Event::Tick), (10, Event::ClaimRequested { job }), (11, Event::JobStarted { job: None })] {
    ///     slot.advance(&policy, &mut ad, &event, t);
    /// }
    /// assert_eq!(slot.activity(), Activity::Busy);
    /// // The owner is back at the keyboard.
    /// ad.set(&policy, Name::new("KeyboardIdle"), 5);
    /// let out = slot.advance(&policy, &mut ad, &Event::Tick, 100);
    /// assert_eq!(out.action_kinds(), [ActionKind::SuspendJob]);
    /// assert_eq!(out.next_check, 105);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn advance(&mut self, policy: &Policy, ad: &mut PolicyAd, event: &Event, now: i64) -> Outcome {
        let mut run = Run {
            policy,
            ad,
            now,
            options: EvalOptions::new().semantics(Semantics::Old).clock(Clock::Fixed(now)),
            slot: self,
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
        Outcome { transitions: run.transitions, actions: run.actions, next_check, warnings: run.warnings }
    }
}

/// One step in progress.
struct Run<'a> {
    policy: &'a Policy,
    /// The slot's ad, brought up to date before each evaluation.
    ad: &'a PolicyAd,
    now: i64,
    options: EvalOptions,
    slot: &'a mut Slot,
    transitions: Vec<Transition>,
    actions: Vec<Action>,
    warnings: Vec<String>,
    budget: u32,
}

/// A policy expression's value, and the name that gave it.
struct Checked {
    truth: Option<bool>,
    name: Name,
    value: Value,
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

    /// The slot's ad now (its maintained attributes brought up to date).
    fn machine_ad(&self) -> Ref<'_, ClassAd> {
        self.ad.current(self.slot, self.policy, self.now)
    }

    /// The claim's job, when there is a claim (the startd's TARGET).
    fn job(&self) -> Option<&ClassAd> {
        self.slot.claim.as_ref().map(|c| &c.job)
    }

    /// `name` of the slot's ad, with the claim's job as TARGET.
    fn value(&self, name: Name) -> Value {
        let ad = self.machine_ad();
        self.value_in(&ad, name, self.job())
    }

    fn value_in(&self, ad: &ClassAd, name: Name, job: Option<&ClassAd>) -> Value {
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
    fn check(&self, knob: &Knob) -> Checked {
        if let (Some((vanilla, vm)), Some(claim)) = (knob.variants, &self.slot.claim) {
            let variant = match claim.universe {
                VANILLA => Some(vanilla),
                VM => Some(vm),
                _ => None,
            };
            if let Some(variant) = variant {
                let value = self.value(variant);
                let truth = truth(&value);
                if truth.is_some() {
                    return Checked { truth, name: variant, value };
                }
            }
        }
        let value = self.value(knob.name);
        Checked { truth: truth(&value), name: knob.name, value }
    }

    /// The cause "`name` is `value`".
    fn cause(&self, name: Name, v: &Value) -> Cause {
        let expr = self.policy.expr(name.as_str()).map(|e| e.to_string()).unwrap_or_else(|| "(unset)".into());
        Cause::Expr { name: name.as_str().to_string(), expr, value: value_word(v) }
    }

    /// The cause of a checked expression's value.
    fn checked(&self, c: &Checked) -> Cause {
        self.cause(c.name, &c.value)
    }

    fn is_owner(&mut self) -> (bool, Checked) {
        let c = self.check(&names().is_owner);
        if c.truth.is_none() {
            let cause = self.checked(&c);
            self.warnings.push(format!("IS_OWNER does not evaluate to a boolean ({cause}); taken as FALSE"));
        }
        (c.truth == Some(true), c)
    }

    fn compute_rank(&self, job: &ClassAd) -> f64 {
        let ad = self.machine_ad();
        self.value_in(&ad, names().rank, Some(job)).as_f64().unwrap_or(0.0)
    }

    fn wants_suspend(&self) -> bool {
        self.check(&names().want_suspend).truth == Some(true)
    }

    fn wants_vacate(&mut self) -> bool {
        if !self.claim_active() {
            return true; // no job: vacating is a no-op
        }
        let c = self.check(&names().want_vacate);
        if c.truth.is_none() {
            let cause = self.checked(&c);
            self.warnings.push(format!("WANT_VACATE does not evaluate to a boolean ({cause}); taken as TRUE"));
        }
        c.truth != Some(false)
    }

    fn wants_hold(&self) -> (bool, Cause) {
        let c = self.check(&names().want_hold);
        (c.truth == Some(true), self.checked(&c))
    }

    /// The cause of a periodic checkpoint now, if one is due.
    fn wants_checkpoint(&self) -> Option<Cause> {
        let claim = self.slot.claim.as_ref()?;
        let ok = match claim.universe {
            VANILLA => claim.job.eval_attr(names().want_checkpoint_signal) == Value::Bool(true),
            VM => true,
            _ => false,
        };
        if !ok {
            return None;
        }
        let c = self.check(&names().periodic_checkpoint);
        (c.truth == Some(true)).then(|| self.checked(&c))
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
        let retirement = names().max_job_retirement_time;
        let mut granted = integer(&self.value_in(&ad, retirement, Some(&claim.job))).unwrap_or(0);
        if claim.job.contains(retirement) {
            let ctx = EvalContext::new(&self.options).my(&claim.job).target(&ad);
            if let Some(j) = integer(&ctx.eval_attr(retirement)) {
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
        let n = names();
        let job = if claim.job.contains(n.job_max_vacate_time) {
            integer(&ctx.eval_attr(n.job_max_vacate_time)).unwrap_or(0)
        } else if claim.job.contains(n.kill_sig_timeout) {
            integer(&ctx.eval_attr(n.kill_sig_timeout)).unwrap_or(0)
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
        integer(&self.value(names().claim_worklife)).filter(|w| *w >= 0)
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
                self.slot.set_claim(None);
                self.slot.pending = None;
                self.slot.match_deadline = None;
                let (owner, c) = self.is_owner();
                if !owner {
                    let cause = self.checked(&c);
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
        self.slot.set_claim(None);
        if let Some(p) = self.slot.pending.take() {
            let start_name = names().start.name;
            let ad = self.machine_ad();
            let start = self.value_in(&ad, start_name, Some(&p.job));
            drop(ad);
            if truth(&start) == Some(false) {
                let why = self.cause(start_name, &start);
                self.act(ActionKind::RefuseClaim, why.clone());
                self.change_state(State::Owner, why);
            } else {
                let why = because(format!(
                    "preempting claim (by {}) takes the slot",
                    if p.by_rank { "RANK" } else { "user priority" }
                ));
                self.act(ActionKind::AcceptClaim, why.clone());
                let claim = self.new_claim(p.job, p.rank);
                self.slot.set_claim(Some(claim));
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
        let claim = self.new_claim(job, rank);
        self.slot.set_claim(Some(claim));
        self.slot.match_deadline = None;
        self.change_state(State::Claimed, cause);
    }

    /// A claim beginning now, its lease running.
    fn new_claim(&self, job: ClassAd, rank: f64) -> Claim {
        let lease = match job.eval_attr(names().job_lease_duration) {
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
            // (Only a running lease has anything to keep alive.)
            .is_some_and(|c| {
                c.active
                    && c.lease_deadline.is_some()
                    && c.job.eval_attr(names().starter_handles_alives) == Value::Bool(true)
            });
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// What a step gave, in words (to compare two ways of stepping).
    fn words(out: &Outcome, slot: &Slot) -> String {
        let transitions: Vec<String> = out.transitions.iter().map(|t| t.to_string()).collect();
        let actions: Vec<String> = out.actions.iter().map(|a| format!("{} ({})", a.kind, a.cause)).collect();
        format!(
            "{}/{} {transitions:?} {actions:?} next {} {:?}",
            slot.state(),
            slot.activity(),
            out.next_check,
            out.warnings
        )
    }

    /// A slot kept with its `PolicyAd` from step to step goes exactly as
    /// one whose ad is built anew at every step, through claims, jobs,
    /// suspensions, vacates, latches and a preempting claim.
    #[test]
    fn a_kept_policy_ad_steps_as_a_new_one() -> Result<(), Box<dyn std::error::Error>> {
        let policy = Policy::parse_str(
            "use POLICY : UWCS_DESKTOP\nRunBenchmarks = False\nRANK = Owner == \"boss\"\nMaxSuspendTime = 600\n",
            "desktop.conf",
        )?;
        let alice: ClassAd =
            r#"[ Owner = "alice"; ClusterId = 1; ProcId = 0; JobUniverse = 5; ImageSize = 10 ]"#.parse()?;
        let bob: ClassAd =
            r#"[ Owner = "bob"; ClusterId = 2; ProcId = 3; JobUniverse = 5; ImageSize = 10 ]"#.parse()?;
        let boss: ClassAd = r#"[ Owner = "boss"; ClusterId = 3; ProcId = 0; JobUniverse = 5 ]"#.parse()?;
        let machine: ClassAd = "[ Cpus = 1; Memory = 1024 ]".parse()?;
        let (keyboard, load, condor) = (Name::new("KeyboardIdle"), Name::new("LoadAvg"), Name::new("CondorLoadAvg"));
        // The owner is at the keyboard from 2000 to 3000 and from 6000 to 6100.
        let owner_at = |t: i64| match t {
            2000..3000 => (0, 1.0),
            3000..6000 => (t - 3000, 0.0),
            6000..6100 => (0, 1.0),
            6100.. => (t - 6100, 0.0),
            _ => (t + 3600, 0.0),
        };
        let mut events: Vec<(i64, Event)> =
            vec![(0, Event::Tick), (100, Event::ClaimRequested { job: alice }), (101, Event::JobStarted { job: None })];
        events.extend((110..8000).step_by(10).map(|t| (t, Event::Tick)));
        events.push((4000, Event::JobExited));
        events.push((4001, Event::JobStarted { job: Some(bob) }));
        events.push((4500, Event::JobUpdated { changes: "[ ImageSize = 99999 ]".parse()? }));
        events.push((5000, Event::ClaimRequested { job: boss }));
        events.push((7000, Event::JobExited));
        events.sort_by_key(|(t, _)| *t);

        let mut kept = Slot::new(0);
        let mut ad = PolicyAd::new(&policy, Arc::new(machine.clone()));
        let mut fresh = Slot::new(0);
        let mut seen = std::collections::HashSet::new();
        for (t, event) in &events {
            let (idle, owner_load) = owner_at(*t);
            let job_load = if kept.activity() == Activity::Busy { 1.0 } else { 0.0 };
            ad.set_all(
                &policy,
                [(keyboard, idle.into()), (load, (owner_load + job_load).into()), (condor, job_load.into())],
            );
            let mut base = machine.clone();
            base.insert(keyboard, idle);
            base.insert(load, owner_load + job_load);
            base.insert(condor, job_load);
            let out = kept.advance(&policy, &mut ad, event, *t);
            let s = step(&policy, &fresh, &base, event, *t);
            fresh = s.slot.clone();
            let expected = Outcome {
                transitions: s.transitions,
                actions: s.actions,
                next_check: s.next_check,
                warnings: s.warnings,
            };
            assert_eq!(words(&out, &kept), words(&expected, &fresh), "at {t} ({event:?})");
            // The kept ad reads as the one built anew, attribute by attribute.
            let flat = fresh.ad(&policy, &base, *t);
            let current = ad.current(&kept, &policy, *t);
            for (name, expr) in flat.iter() {
                assert!(current.lookup(name).is_some_and(|e| e.same_as(expr)), "{name} at {t}");
            }
            for (name, _) in current.iter() {
                assert!(flat.contains(name), "{name} at {t}: not in the new ad");
            }
            drop(current);
            seen.extend(out.path());
        }
        // The trace went through what it is meant to test (a preempting
        // claim, a suspension, vacating).
        for pair in [
            (State::Claimed, Activity::Busy),
            (State::Claimed, Activity::Suspended),
            (State::Claimed, Activity::Retiring),
            (State::Claimed, Activity::Idle),
            (State::Preempting, Activity::Vacating),
        ] {
            assert!(seen.contains(&pair), "{pair:?} not reached: {seen:?}");
        }
        Ok(())
    }
}
