//! The condor_startd's policy state machine (`matchmaker::startd`):
//! `StartdPolicy` (read from a configuration), `SlotState` (what the
//! startd remembers about a slot) and `step`, one event at one time as a
//! pure function, giving the transitions and actions with their causes.

use matchmaker::startd::{
    self, Action, ActionKind, Cause, DrainHow, Event, Policy, PolicyError, Slot, Step, Transition,
};
use pyo3::prelude::*;

use crate::config::PyConfig;
use crate::errors::error;
use crate::objects::PyClassAd;
use crate::objects::PyExprTree;

fn policy_error(e: &PolicyError) -> PyErr {
    error(e.to_string())
}

/// A startd's policy: `START`, `SUSPEND`, `PREEMPT`, `KILL`, ... and its
/// timers (`MATCH_TIMEOUT`, `KILLING_TIMEOUT`, ...), with HTCondor's
/// defaults for what the configuration leaves unset.
///
/// `StartdPolicy.from_config(config)` or `StartdPolicy.from_text(text)`;
/// `step(...)` moves a `SlotState` by one event.
#[pyclass(name = "StartdPolicy", module = "classad_rs")]
pub(crate) struct PyStartdPolicy {
    policy: Policy,
}

#[pymethods]
impl PyStartdPolicy {
    /// The policy of `config` (make it with `subsystem="STARTD"` for
    /// `STARTD.NAME` settings to apply).
    #[staticmethod]
    fn from_config(config: PyRef<'_, PyConfig>) -> PyResult<PyStartdPolicy> {
        Policy::from_config(&config.config).map(|policy| PyStartdPolicy { policy }).map_err(|e| policy_error(&e))
    }

    /// The policy of a configuration text (`name` stands for its file in
    /// messages).
    #[staticmethod]
    #[pyo3(signature = (text, name="<policy>"))]
    fn from_text(text: &str, name: &str) -> PyResult<PyStartdPolicy> {
        Policy::parse_str(text, name).map(|policy| PyStartdPolicy { policy }).map_err(|e| policy_error(&e))
    }

    /// The expression held under `name` (any case), if any.
    fn expr(&self, name: &str) -> Option<PyExprTree> {
        self.policy.expr(name).map(|e| PyExprTree { expr: e.clone() })
    }

    /// Replaces (or adds) a policy expression.
    fn set_expr(&mut self, name: &str, text: &str) -> PyResult<()> {
        self.policy.set_expr(name, text).map_err(|e| policy_error(&e))
    }

    /// The policy's expressions as an ad.
    fn ad(&self) -> PyClassAd {
        PyClassAd { ad: self.policy.ad().clone() }
    }

    /// `MATCH_TIMEOUT`, seconds.
    #[getter]
    fn match_timeout(&self) -> i64 {
        self.policy.match_timeout
    }

    /// `KILLING_TIMEOUT`, seconds.
    #[getter]
    fn killing_timeout(&self) -> i64 {
        self.policy.killing_timeout
    }

    /// `POLLING_INTERVAL`, seconds.
    #[getter]
    fn polling_interval(&self) -> i64 {
        self.policy.polling_interval
    }

    /// `UPDATE_INTERVAL`, seconds.
    #[getter]
    fn update_interval(&self) -> i64 {
        self.policy.update_interval
    }

    /// Whether backfill is on (`ENABLE_BACKFILL`).
    #[getter]
    fn backfill(&self) -> bool {
        self.policy.backfill
    }

    /// One event at time `now` on `slot`, whose machine attributes
    /// (`KeyboardIdle`, `LoadAvg`, ...) are `machine`: the new slot, the
    /// transitions and actions with their causes, and when to check next.
    ///
    /// `event` is one of `"tick"`, `"matched"`, `"claim_requested"`
    /// (with `job`), `"preempting_claim_withdrawn"`, `"job_started"`
    /// (`job` optional), `"job_exited"`, `"job_updated"` (with `changes`),
    /// `"suspend_claim"`, `"continue_claim"`, `"claim_released"`,
    /// `"schedd_gone"`, `"vacate"` (`fast`), `"drain"` (`how`:
    /// `"graceful"`, `"quick"` or `"fast"`; `resume_on_completion`),
    /// `"cancel_drain"`, `"benchmarks_done"`, `"backfill_started"`,
    /// `"backfill_exited"`.
    #[pyo3(signature = (slot, event, now, machine=None, *, job=None, changes=None, fast=false, how="graceful", resume_on_completion=false))]
    #[allow(clippy::too_many_arguments)]
    fn step(
        &self,
        py: Python<'_>,
        slot: PyRef<'_, PySlotState>,
        event: &str,
        now: i64,
        machine: Option<PyRef<'_, PyClassAd>>,
        job: Option<PyRef<'_, PyClassAd>>,
        changes: Option<PyRef<'_, PyClassAd>>,
        fast: bool,
        how: &str,
        resume_on_completion: bool,
    ) -> PyResult<PyStep> {
        let job = job.map(|j| j.ad.clone());
        let need_job = || job.clone().ok_or_else(|| error(format!("event {event:?} needs job=")));
        let event = match event {
            "tick" => Event::Tick,
            "matched" => Event::Matched,
            "claim_requested" => Event::ClaimRequested { job: need_job()? },
            "preempting_claim_withdrawn" => Event::PreemptingClaimWithdrawn,
            "job_started" => Event::JobStarted { job: job.clone() },
            "job_exited" => Event::JobExited,
            "job_updated" => Event::JobUpdated {
                changes: changes
                    .map(|c| c.ad.clone())
                    .ok_or_else(|| error("event \"job_updated\" needs changes=".into()))?,
            },
            "suspend_claim" => Event::SuspendClaim,
            "continue_claim" => Event::ContinueClaim,
            "claim_released" => Event::ClaimReleased,
            "schedd_gone" => Event::ScheddGone,
            "vacate" => Event::Vacate { fast },
            "drain" => Event::Drain {
                how: match how {
                    "graceful" => DrainHow::Graceful,
                    "quick" => DrainHow::Quick,
                    "fast" => DrainHow::Fast,
                    other => {
                        return Err(error(format!("how={other:?}: one of \"graceful\", \"quick\", \"fast\"")));
                    }
                },
                resume_on_completion,
            },
            "cancel_drain" => Event::CancelDrain,
            "benchmarks_done" => Event::BenchmarksDone,
            "backfill_started" => Event::BackfillStarted,
            "backfill_exited" => Event::BackfillExited,
            other => return Err(error(format!("unknown startd event {other:?}"))),
        };
        let base = machine.map(|m| m.ad.clone()).unwrap_or_default();
        let policy = &self.policy;
        let before = &slot.slot;
        let step = py.detach(|| startd::step(policy, before, &base, &event, now));
        PyStep::new(py, step)
    }

    fn __repr__(&self) -> String {
        format!("StartdPolicy(START={})", self.policy.expr("START").map(|e| e.to_string()).unwrap_or_default())
    }
}

/// What the startd remembers about a slot between evaluations: state and
/// activity, when they were entered, the claim. `SlotState(now)` is a slot
/// as the startd creates it (Owner/Idle); `StartdPolicy.step` gives the
/// next one.
#[pyclass(name = "SlotState", module = "classad_rs", frozen)]
pub(crate) struct PySlotState {
    slot: Slot,
}

#[pymethods]
impl PySlotState {
    #[new]
    #[pyo3(signature = (now=0))]
    fn new(now: i64) -> PySlotState {
        PySlotState { slot: Slot::new(now) }
    }

    /// The state (`"Owner"`, `"Unclaimed"`, `"Matched"`, `"Claimed"`,
    /// `"Preempting"`, `"Backfill"`, `"Drained"`).
    #[getter]
    fn state(&self) -> &'static str {
        self.slot.state().as_str()
    }

    /// The activity (`"Idle"`, `"Benchmarking"`, `"Busy"`, `"Suspended"`,
    /// `"Retiring"`, `"Vacating"`, `"Killing"`).
    #[getter]
    fn activity(&self) -> &'static str {
        self.slot.activity().as_str()
    }

    /// When the state was entered (`EnteredCurrentState`).
    #[getter]
    fn entered_state(&self) -> i64 {
        self.slot.entered_state()
    }

    /// When the activity was entered (`EnteredCurrentActivity`).
    #[getter]
    fn entered_activity(&self) -> i64 {
        self.slot.entered_activity()
    }

    /// Whether the slot is being drained.
    #[getter]
    fn is_draining(&self) -> bool {
        self.slot.is_draining()
    }

    /// The claim's job ad (Claimed and Preempting), if any.
    #[getter]
    fn claim_job(&self) -> Option<PyClassAd> {
        self.slot.claim().map(|c| PyClassAd { ad: c.job().clone() })
    }

    /// When the claim's running job started, if one runs.
    #[getter]
    fn job_start(&self) -> Option<i64> {
        self.slot.claim().and_then(|c| c.job_start())
    }

    /// The job of the preempting claim waiting for the current one, if any.
    #[getter]
    fn preempting_job(&self) -> Option<PyClassAd> {
        self.slot.preempting_claim().map(|p| PyClassAd { ad: p.job().clone() })
    }

    /// The slot's ad as the startd evaluates policy against it at `now`
    /// (`machine`, the policy's expressions, `State`, `Activity`, ...).
    #[pyo3(signature = (policy, now, machine=None))]
    fn ad(&self, policy: PyRef<'_, PyStartdPolicy>, now: i64, machine: Option<PyRef<'_, PyClassAd>>) -> PyClassAd {
        let base = machine.map(|m| m.ad.clone()).unwrap_or_default();
        PyClassAd { ad: self.slot.ad(&policy.policy, &base, now) }
    }

    fn __repr__(&self) -> String {
        format!("SlotState({}/{})", self.state(), self.activity())
    }
}

/// A change of state or activity, and why.
#[pyclass(name = "Transition", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyTransition {
    /// State before.
    from_state: &'static str,
    /// Activity before.
    from_activity: &'static str,
    /// State after.
    to_state: &'static str,
    /// Activity after.
    to_activity: &'static str,
    /// The manual's number of the transition, if it has one.
    number: Option<u8>,
    /// Why, in words (`"PREEMPT is TRUE: ..."`, `"MATCH_TIMEOUT expired
    /// (120 s)"`).
    cause: String,
    /// The expression or knob that caused it, if one did.
    knob: Option<String>,
}

#[pymethods]
impl PyTransition {
    fn __repr__(&self) -> String {
        format!(
            "Transition({}/{} -> {}/{}, number={}, cause={:?})",
            self.from_state,
            self.from_activity,
            self.to_state,
            self.to_activity,
            self.number.map_or("None".to_string(), |n| n.to_string()),
            self.cause
        )
    }
}

fn knob(cause: &Cause) -> Option<String> {
    cause.knob().map(str::to_string)
}

impl From<&Transition> for PyTransition {
    fn from(t: &Transition) -> Self {
        PyTransition {
            from_state: t.from.0.as_str(),
            from_activity: t.from.1.as_str(),
            to_state: t.to.0.as_str(),
            to_activity: t.to.1.as_str(),
            number: t.number,
            cause: t.cause.to_string(),
            knob: knob(&t.cause),
        }
    }
}

/// Something the startd does to the job, the schedd or the machine.
#[pyclass(name = "StartdAction", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyStartdAction {
    /// What: `"AcceptClaim"`, `"RefuseClaim"`, `"StartJob"`,
    /// `"RefuseActivation"`, `"SuspendJob"`, `"ContinueJob"`,
    /// `"VacateJob"`, `"KillJob"`, `"KillStarter"`, `"HoldJob"`,
    /// `"Checkpoint"`, `"ReleaseClaim"`, `"RunBenchmarks"`,
    /// `"StartBackfill"`, `"KillBackfill"`.
    kind: &'static str,
    /// The kind with its detail (`"VacateJob(600 s)"`, `"HoldJob(soft)"`).
    detail: String,
    /// For `VacateJob`: seconds the job gets to exit.
    max_vacate_time: Option<i64>,
    /// For `HoldJob`: whether the hold is soft.
    soft: Option<bool>,
    /// Why, in words.
    cause: String,
    /// The expression or knob that caused it, if one did.
    knob: Option<String>,
    /// How many of the step's transitions came before it.
    after: usize,
}

#[pymethods]
impl PyStartdAction {
    fn __repr__(&self) -> String {
        format!("StartdAction({}, cause={:?})", self.detail, self.cause)
    }
}

fn action_name(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::AcceptClaim => "AcceptClaim",
        ActionKind::RefuseClaim => "RefuseClaim",
        ActionKind::StartJob => "StartJob",
        ActionKind::RefuseActivation => "RefuseActivation",
        ActionKind::SuspendJob => "SuspendJob",
        ActionKind::ContinueJob => "ContinueJob",
        ActionKind::VacateJob { .. } => "VacateJob",
        ActionKind::KillJob => "KillJob",
        ActionKind::KillStarter => "KillStarter",
        ActionKind::HoldJob { .. } => "HoldJob",
        ActionKind::Checkpoint => "Checkpoint",
        ActionKind::ReleaseClaim => "ReleaseClaim",
        ActionKind::RunBenchmarks => "RunBenchmarks",
        ActionKind::StartBackfill => "StartBackfill",
        ActionKind::KillBackfill => "KillBackfill",
    }
}

impl From<&Action> for PyStartdAction {
    fn from(a: &Action) -> Self {
        let (max_vacate_time, soft) = match a.kind {
            ActionKind::VacateJob { max_vacate_time } => (Some(max_vacate_time), None),
            ActionKind::HoldJob { soft } => (None, Some(soft)),
            _ => (None, None),
        };
        PyStartdAction {
            kind: action_name(a.kind),
            detail: a.kind.to_string(),
            max_vacate_time,
            soft,
            cause: a.cause.to_string(),
            knob: knob(&a.cause),
            after: a.after,
        }
    }
}

/// The result of one `StartdPolicy.step`.
#[pyclass(name = "StartdStep", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyStep {
    /// The slot after the step.
    slot: Py<PySlotState>,
    /// The changes of state or activity, in order.
    transitions: Vec<Py<PyTransition>>,
    /// The actions, in order.
    actions: Vec<Py<PyStartdAction>>,
    /// When the startd would next evaluate the slot.
    next_check: i64,
    /// What the real startd would log as errors.
    warnings: Vec<String>,
}

impl PyStep {
    fn new(py: Python<'_>, step: Step) -> PyResult<PyStep> {
        Ok(PyStep {
            transitions: step
                .transitions
                .iter()
                .map(|t| Py::new(py, PyTransition::from(t)))
                .collect::<PyResult<_>>()?,
            actions: step.actions.iter().map(|a| Py::new(py, PyStartdAction::from(a))).collect::<PyResult<_>>()?,
            slot: Py::new(py, PySlotState { slot: step.slot })?,
            next_check: step.next_check,
            warnings: step.warnings,
        })
    }
}

#[pymethods]
impl PyStep {
    fn __repr__(&self, py: Python<'_>) -> String {
        let slot = self.slot.borrow(py);
        format!(
            "StartdStep(slot={}/{}, {} transitions, {} actions, next_check={})",
            slot.state(),
            slot.activity(),
            self.transitions.len(),
            self.actions.len(),
            self.next_check
        )
    }
}
