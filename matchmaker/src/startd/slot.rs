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

use std::cell::{Cell, Ref, RefCell};
use std::sync::{Arc, OnceLock};

use classad::{ClassAd, Clock, EvalContext, EvalOptions, Expr, Name, Semantics, Value};

use super::claim::{Claim, Pending, VANILLA, VM};
use super::event::{Action, ActionKind, Cause, DrainHow, Event, Outcome, Step, Transition};
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
    /// Counts the changes of the latches' values (so that a [`PolicyAd`]
    /// knows when to publish them again).
    latch_changes: u64,
    /// Counts the changes of the claim or its job ad (the same for the
    /// `RemoteUser`, `RemoteOwner` and `JobId` a [`PolicyAd`] publishes).
    claim_changes: u64,
}

#[derive(Debug, Clone, Copy)]
struct Draining {
    how: DrainHow,
    resume: bool,
}

#[derive(Debug, Clone)]
struct Latch {
    name: Name,
    /// `<name>Value`.
    value_name: Name,
    /// `<name>Time`.
    time_name: Name,
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

    /// Replaces the claim.
    fn set_claim(&mut self, claim: Option<Claim>) {
        self.claim = claim;
        self.claim_changes += 1;
    }

    /// What the startd maintains, inserted into `ad`.
    fn insert_dynamic(&self, policy: &Policy, now: i64, ad: &mut ClassAd) {
        self.insert_clocks(policy, now, ad);
        let n = names();
        for latch in &self.latches {
            if let Some(v) = latch.value {
                ad.insert(latch.value_name, v);
            }
            if let Some(t) = latch.changed_at {
                ad.insert(latch.time_name, t);
            }
        }
        if let Some(claim) = &self.claim {
            let job = &claim.job;
            let user = job.eval_attr(n.user);
            let owner = job.eval_attr(n.owner);
            if let Some(u) = user.as_str().or(owner.as_str()) {
                ad.insert(n.remote_user, u);
            }
            if let Some(o) = owner.as_str() {
                ad.insert(n.remote_owner, o);
            }
            if let (Value::Int(c), Value::Int(p)) = (job.eval_attr(n.cluster_id), job.eval_attr(n.proc_id)) {
                ad.insert(n.job_id, format!("{c}.{p}"));
            }
            self.insert_claim_clocks(claim, ad);
        }
    }

    /// The attributes the startd maintains that are always there.
    fn insert_clocks(&self, policy: &Policy, now: i64, ad: &mut ClassAd) {
        let n = names();
        ad.insert(n.state, n.states[self.state as usize].clone());
        ad.insert(n.activity, n.activities[self.activity as usize].clone());
        ad.insert(n.entered_current_state, self.entered_state);
        ad.insert(n.entered_current_activity, self.entered_activity);
        ad.insert(n.my_current_time, now);
        let local = now.saturating_add(policy.utc_offset);
        ad.insert(n.clock_min, local.rem_euclid(86_400) / 60);
        // 1970-01-01 was a Thursday (day 4, Sunday being 0).
        ad.insert(n.clock_day, (local.div_euclid(86_400) + 4).rem_euclid(7));
        ad.insert(n.last_benchmark, self.last_benchmark);
        let available = !matches!(self.state, State::Matched | State::Preempting | State::Drained);
        ad.insert(n.requirements, if available { n.start_ref.clone() } else { Expr::from(false) });
    }

    /// Writes what differs between `last` and `key` (of the same shape)
    /// into an ad that has the attributes of `last`.
    fn update_clocks(&self, policy: &Policy, now: i64, ad: &mut ClassAd, last: &AdKey, key: &AdKey) {
        let n = names();
        if last.state != key.state {
            ad.insert(n.state, n.states[self.state as usize].clone());
            let available = !matches!(self.state, State::Matched | State::Preempting | State::Drained);
            ad.insert(n.requirements, if available { n.start_ref.clone() } else { Expr::from(false) });
        }
        if last.activity != key.activity {
            ad.insert(n.activity, n.activities[self.activity as usize].clone());
        }
        if last.entered.0 != key.entered.0 {
            ad.insert(n.entered_current_state, self.entered_state);
        }
        if last.entered.1 != key.entered.1 {
            ad.insert(n.entered_current_activity, self.entered_activity);
        }
        if last.now != key.now || last.utc_offset != key.utc_offset {
            ad.insert(n.my_current_time, now);
            let local = now.saturating_add(policy.utc_offset);
            let before = last.now.saturating_add(last.utc_offset);
            if local.div_euclid(60) != before.div_euclid(60) {
                ad.insert(n.clock_min, local.rem_euclid(86_400) / 60);
            }
            if local.div_euclid(86_400) != before.div_euclid(86_400) {
                ad.insert(n.clock_day, (local.div_euclid(86_400) + 4).rem_euclid(7));
            }
        }
        if last.last_benchmark != key.last_benchmark {
            ad.insert(n.last_benchmark, self.last_benchmark);
        }
        if last.claim != key.claim {
            if let Some(claim) = &self.claim {
                self.insert_claim_clocks(claim, ad);
            }
        }
    }

    /// The claim's clocks and rank.
    fn insert_claim_clocks(&self, claim: &Claim, ad: &mut ClassAd) {
        let n = names();
        if let Some(t) = claim.job_start {
            ad.insert(n.job_start, t);
        }
        if let Some(t) = claim.last_checkpoint {
            ad.insert(n.last_periodic_checkpoint, t);
        }
        ad.insert(n.current_rank, claim.rank);
    }

    /// What the slot's maintained attributes depend on, besides the
    /// policy and the time (see [`PolicyAd`]).
    fn ad_key(&self, policy: &Policy, now: i64) -> AdKey {
        let claim = self.claim.as_ref().map(|c| (c.job_start, c.last_checkpoint, c.rank.to_bits()));
        let present = self.claim.as_ref().map(|c| (c.job_start.is_some(), c.last_checkpoint.is_some()));
        AdKey {
            state: self.state,
            activity: self.activity,
            entered: (self.entered_state, self.entered_activity),
            now,
            utc_offset: policy.utc_offset,
            last_benchmark: self.last_benchmark,
            latches: (self.latches.len(), self.latch_changes),
            claim_changes: self.claim_changes,
            claim,
            present,
        }
    }
}

/// The names the state machine reads and writes, interned once.
struct Names {
    state: Name,
    activity: Name,
    entered_current_state: Name,
    entered_current_activity: Name,
    my_current_time: Name,
    clock_min: Name,
    clock_day: Name,
    last_benchmark: Name,
    requirements: Name,
    remote_user: Name,
    remote_owner: Name,
    job_id: Name,
    job_start: Name,
    last_periodic_checkpoint: Name,
    current_rank: Name,
    user: Name,
    owner: Name,
    cluster_id: Name,
    proc_id: Name,
    want_checkpoint_signal: Name,
    starter_handles_alives: Name,
    job_universe: Name,
    max_job_retirement_time: Name,
    job_max_vacate_time: Name,
    kill_sig_timeout: Name,
    job_lease_duration: Name,
    machine_max_vacate_time: Name,
    claim_worklife: Name,
    rank: Name,
    start: Knob,
    is_owner: Knob,
    want_suspend: Knob,
    want_vacate: Knob,
    want_hold: Knob,
    periodic_checkpoint: Knob,
    kill: Knob,
    run_benchmarks: Knob,
    start_backfill: Knob,
    evict_backfill: Knob,
    preempt: Knob,
    suspend: Knob,
    cont: Knob,
    /// `Requirements` of an available slot: `START`.
    start_ref: Expr,
    /// The values of `State`, by [`State`].
    states: Vec<Expr>,
    /// The values of `Activity`, by [`Activity`].
    activities: Vec<Expr>,
}

/// A policy expression's name, and the names of its `_VANILLA` and `_VM`
/// forms when the startd reads them first.
#[derive(Clone, Copy)]
struct Knob {
    name: Name,
    variants: Option<(Name, Name)>,
}

impl Knob {
    fn plain(name: &str) -> Knob {
        Knob { name: Name::new(name), variants: None }
    }

    fn with_variants(name: &str) -> Knob {
        let vanilla = Name::new(&format!("{name}_VANILLA"));
        let vm = Name::new(&format!("{name}_VM"));
        Knob { name: Name::new(name), variants: Some((vanilla, vm)) }
    }
}

fn names() -> &'static Names {
    static NAMES: OnceLock<Names> = OnceLock::new();
    NAMES.get_or_init(|| Names {
        state: Name::new("State"),
        activity: Name::new("Activity"),
        entered_current_state: Name::new("EnteredCurrentState"),
        entered_current_activity: Name::new("EnteredCurrentActivity"),
        my_current_time: Name::new("MyCurrentTime"),
        clock_min: Name::new("ClockMin"),
        clock_day: Name::new("ClockDay"),
        last_benchmark: Name::new("LastBenchmark"),
        requirements: Name::new("Requirements"),
        remote_user: Name::new("RemoteUser"),
        remote_owner: Name::new("RemoteOwner"),
        job_id: Name::new("JobId"),
        job_start: Name::new("JobStart"),
        last_periodic_checkpoint: Name::new("LastPeriodicCheckpoint"),
        current_rank: Name::new("CurrentRank"),
        user: Name::new("User"),
        owner: Name::new("Owner"),
        cluster_id: Name::new("ClusterId"),
        proc_id: Name::new("ProcId"),
        want_checkpoint_signal: Name::new("WantCheckpointSignal"),
        starter_handles_alives: Name::new("StarterHandlesAlives"),
        job_universe: Name::new("JobUniverse"),
        max_job_retirement_time: Name::new("MaxJobRetirementTime"),
        job_max_vacate_time: Name::new("JobMaxVacateTime"),
        kill_sig_timeout: Name::new("KillSigTimeout"),
        job_lease_duration: Name::new("JobLeaseDuration"),
        machine_max_vacate_time: Name::new("MachineMaxVacateTime"),
        claim_worklife: Name::new("CLAIM_WORKLIFE"),
        rank: Name::new("Rank"),
        start: Knob::plain("START"),
        is_owner: Knob::plain("IsOwner"),
        want_suspend: Knob::with_variants("WANT_SUSPEND"),
        want_vacate: Knob::with_variants("WANT_VACATE"),
        want_hold: Knob::plain("WANT_HOLD"),
        periodic_checkpoint: Knob::plain("PERIODIC_CHECKPOINT"),
        kill: Knob::with_variants("KILL"),
        run_benchmarks: Knob::plain("RunBenchmarks"),
        start_backfill: Knob::plain("START_BACKFILL"),
        evict_backfill: Knob::plain("EVICT_BACKFILL"),
        preempt: Knob::with_variants("PREEMPT"),
        suspend: Knob::with_variants("SUSPEND"),
        cont: Knob::with_variants("CONTINUE"),
        start_ref: classad::parse_expr("START").unwrap_or_else(|_| Expr::from(true)),
        states: State::ALL.iter().map(|s| Expr::from(s.as_str())).collect(),
        activities: Activity::ALL.iter().map(|a| Expr::from(a.as_str())).collect(),
    })
}

/// What a slot's maintained attributes were last computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
struct AdKey {
    state: State,
    activity: Activity,
    entered: (i64, i64),
    now: i64,
    utc_offset: i64,
    last_benchmark: i64,
    latches: (usize, u64),
    claim_changes: u64,
    claim: Option<(Option<i64>, Option<i64>, u64)>,
    /// Whether there is a claim, with `JobStart` and
    /// `LastPeriodicCheckpoint`.
    present: Option<(bool, bool)>,
}

/// The ad a slot's policy is evaluated against, kept from step to step:
/// the machine's attributes (`KeyboardIdle`, `LoadAvg`, ... as the
/// caller sets them), the policy's expressions, and what the startd
/// maintains (as in [`Slot::ad`]), each updated in place when it changes.
/// Use one per slot with [`Slot::advance`]; [`step`] builds a new one
/// every time.
///
/// ```
/// use std::sync::Arc;
/// use classad::{ClassAd, Name};
/// use matchmaker::startd::{Activity, Event, Policy, PolicyAd, Slot, State};
///
/// let policy = Policy::parse_str("IS_OWNER = KeyboardIdle < 900\nRunBenchmarks = False\n", "idle.conf")?;
/// let mut ad = PolicyAd::new(&policy, Arc::new(ClassAd::new()));
/// let keyboard = Name::new("KeyboardIdle");
/// let mut slot = Slot::new(0);
/// ad.set(&policy, keyboard, 60);
/// slot.advance(&policy, &mut ad, &Event::Tick, 0);
/// assert_eq!(slot.state(), State::Owner);
/// ad.set(&policy, keyboard, 1000);
/// let out = slot.advance(&policy, &mut ad, &Event::Tick, 300);
/// assert_eq!((slot.state(), slot.activity()), (State::Unclaimed, Activity::Idle));
/// assert_eq!(out.transitions[0].cause.knob(), Some("IsOwner"));
/// # Ok::<(), matchmaker::startd::PolicyError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PolicyAd {
    /// What the startd maintains, chained to the machine's attributes
    /// and the policy's expressions, themselves chained to the base ad.
    maintained: RefCell<ClassAd>,
    key: Cell<Option<AdKey>>,
}

impl PolicyAd {
    /// The ad of a slot whose own attributes are `base`, under `policy`
    /// (whose expressions take the place of `base`'s of the same name).
    pub fn new(policy: &Policy, base: Arc<ClassAd>) -> PolicyAd {
        let mut fixed = ClassAd::with_capacity(policy.ad().len() + 8);
        fixed.chain_to(base);
        fixed.update(policy.ad());
        PolicyAd::over(fixed)
    }

    /// As [`new`](PolicyAd::new), with `base` copied rather than shared.
    fn copied(policy: &Policy, base: &ClassAd) -> PolicyAd {
        let mut fixed = base.clone();
        fixed.update(policy.ad());
        PolicyAd::over(fixed)
    }

    fn over(fixed: ClassAd) -> PolicyAd {
        let mut maintained = ClassAd::with_capacity(24);
        maintained.chain_to(Arc::new(fixed));
        PolicyAd { maintained: RefCell::new(maintained), key: Cell::new(None) }
    }

    /// Sets a machine attribute (`KeyboardIdle`, `LoadAvg`, ...), in
    /// place. An attribute the policy defines keeps the policy's
    /// expression, as in [`Slot::ad`].
    pub fn set(&mut self, policy: &Policy, name: Name, value: impl Into<Expr>) {
        self.set_all(policy, [(name, value.into())]);
    }

    /// Sets several machine attributes at once (as [`set`](PolicyAd::set)).
    pub fn set_all(&mut self, policy: &Policy, attrs: impl IntoIterator<Item = (Name, Expr)>) {
        let maintained = self.maintained.get_mut();
        let Some(mut fixed) = maintained.unchain() else { return };
        let machine = Arc::make_mut(&mut fixed);
        for (name, value) in attrs {
            if !policy.ad().contains(name) {
                machine.insert(name, value);
            }
        }
        maintained.chain_to(fixed);
    }

    /// The ad as it was last evaluated: machine attributes, policy and
    /// maintained attributes.
    pub fn ad(&self) -> Ref<'_, ClassAd> {
        self.maintained.borrow()
    }

    /// The ad for `slot` at `now`: the maintained attributes brought up
    /// to date (in place unless an optional one came or went).
    fn current(&self, slot: &Slot, policy: &Policy, now: i64) -> Ref<'_, ClassAd> {
        let key = slot.ad_key(policy, now);
        let last = self.key.get();
        if last != Some(key) {
            let mut ad = self.maintained.borrow_mut();
            // The latches and what comes from the job ad change seldom:
            // then everything is written again.
            let same_shape = last.is_some_and(|k| {
                k.present == key.present && k.claim_changes == key.claim_changes && k.latches == key.latches
            });
            match last.filter(|_| same_shape) {
                Some(last) => slot.update_clocks(policy, now, &mut ad, &last, &key),
                None => {
                    ad.clear();
                    slot.insert_dynamic(policy, now, &mut ad);
                }
            }
            self.key.set(Some(key));
        }
        self.maintained.borrow()
    }
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
    let mut slot = slot.clone();
    let mut ad = PolicyAd::copied(policy, base);
    let Outcome { transitions, actions, next_check, warnings } = slot.advance(policy, &mut ad, event, now);
    Step { slot, transitions, actions, next_check, warnings }
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

    // ----- the periodic evaluation ----------------------------------------

    fn evaluate_latches(&mut self) {
        if self.slot.latches.len() != self.policy.latches.len() {
            self.slot.latches = self
                .policy
                .latches
                .iter()
                .map(|name| Latch {
                    name: Name::new(name),
                    value_name: Name::new(&format!("{name}Value")),
                    time_name: Name::new(&format!("{name}Time")),
                    value: None,
                    changed_at: None,
                })
                .collect();
            self.slot.latch_changes += 1;
        }
        let now = self.now;
        let mut changed = false;
        // Each is evaluated against the ad as it was before any of them
        // changed (the changes show once they are all done).
        for i in 0..self.slot.latches.len() {
            let v = {
                let ad = self.machine_ad();
                let ctx = EvalContext::new(&self.options).my(&ad);
                integer(&ctx.eval_attr(self.slot.latches[i].name))
            };
            let latch = &mut self.slot.latches[i];
            if v != latch.value {
                latch.value = v;
                latch.changed_at = Some(now);
                changed = true;
            }
        }
        if changed {
            self.slot.latch_changes += 1;
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
                    let kill = self.check(&names().kill);
                    if kill.truth == Some(true) {
                        let cause = self.checked(&kill);
                        self.change_act(Activity::Killing, cause);
                    }
                }
            }
            State::Unclaimed => {
                if self.slot.draining.is_some() {
                    self.change(State::Drained, Activity::Retiring, because("draining"));
                    return;
                }
                let (owner, c) = self.is_owner();
                if owner {
                    let cause = self.checked(&c);
                    self.change_state(State::Owner, cause);
                    return;
                }
                if self.slot.activity == Activity::Idle && !self.slot.was_benchmarking {
                    let run = self.check(&names().run_benchmarks);
                    if run.truth == Some(true) {
                        let cause = self.checked(&run);
                        self.act(ActionKind::RunBenchmarks, cause.clone());
                        self.change_act(Activity::Benchmarking, cause);
                        return;
                    }
                }
                if self.policy.backfill {
                    let start = self.check(&names().start_backfill);
                    if start.truth == Some(true) {
                        let cause = self.checked(&start);
                        self.change(State::Backfill, Activity::Idle, cause);
                    }
                }
            }
            State::Owner => {
                if self.slot.draining.is_some() {
                    self.change(State::Drained, Activity::Retiring, because("draining"));
                    return;
                }
                let (owner, c) = self.is_owner();
                if !owner {
                    let cause = self.checked(&c);
                    self.change_state(State::Unclaimed, cause);
                }
            }
            // Only the match timer or a claim request move a Matched slot.
            State::Matched => {}
            State::Backfill => {
                if self.slot.activity == Activity::Killing {
                    return;
                }
                let evict = self.check(&names().evict_backfill);
                if evict.truth == Some(true) {
                    let cause = self.checked(&evict);
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
            if self.check(&names().preempt).truth == Some(true) {
                if let Some(c) = self.slot.claim.as_mut() {
                    c.preempt_was_true = true;
                }
            }
            let cause = self.retirement_cause();
            self.change_state(State::Preempting, cause);
            return;
        }
        // (Only a running or retiring job can be suspended.)
        let want_suspend = matches!(act, Activity::Busy | Activity::Retiring) && self.wants_suspend();
        let preempt_was_true = self.slot.claim.as_ref().is_some_and(|c| c.preempt_was_true);
        if (act == Activity::Busy && !want_suspend)
            || (act == Activity::Retiring && !preempt_was_true && !want_suspend)
            || (act == Activity::Suspended && !preempt_was_true)
        {
            let preempt = self.check(&names().preempt);
            if preempt.truth == Some(true) {
                let cause = self.checked(&preempt);
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
            let suspend = self.check(&names().suspend);
            if suspend.truth == Some(true) {
                let cause = self.checked(&suspend);
                self.change_act(Activity::Suspended, cause);
                return;
            }
        }
        if act == Activity::Suspended && !self.slot.suspended_by_command {
            let cont = self.check(&names().cont);
            if cont.truth == Some(true) {
                let cause = self.checked(&cont);
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
            let start = self.check(&names().start);
            if start.truth == Some(false) {
                let cause = self.checked(&start);
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
            if let Some(cause) = self.wants_checkpoint() {
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
                Some(c) => {
                    c.job.update(changes);
                    self.slot.claim_changes += 1;
                }
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
        let n = names();
        let start = self.value_in(&ad, n.start.name, Some(&job));
        if truth(&start) != Some(true) {
            drop(ad);
            let cause = self.cause(n.start.name, &start);
            self.act(ActionKind::RefuseActivation, cause);
            return;
        }
        let pledged = integer(&self.value_in(&ad, n.machine_max_vacate_time, Some(&job))).unwrap_or(0);
        let rank = self.value_in(&ad, n.rank, Some(&job)).as_f64().unwrap_or(0.0);
        drop(ad);
        let universe = integer(&job.eval_attr(n.job_universe)).unwrap_or(VANILLA);
        let wants_ckpt =
            universe == VM || (universe == VANILLA && job.eval_attr(n.want_checkpoint_signal) == Value::Bool(true));
        let draining = self.slot.draining.is_some();
        if let Some(c) = self.slot.claim.as_mut() {
            c.job = job;
            c.rank = rank;
            self.slot.claim_changes += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

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
