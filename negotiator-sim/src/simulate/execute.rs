//! The execute side over time: each running job's slot goes through the
//! startd's policy state machine ([`matchmaker::startd`]), fed with its
//! machine's owner activity ([`owner`](super::owner)).
//!
//! A machine type's policy is read from its configuration (the scenario's
//! `config`, then its `startd_config`) with [`Policy::from_config`]. When
//! a job starts on a slot whose policy can act on it (a `SUSPEND` or a
//! `PREEMPT` that is not just `False`, or an owner model whose activity
//! `START` may see), the slot is claimed and activated in the state
//! machine; from then on it is evaluated at the startd's polling times
//! (`POLLING_INTERVAL`, or sooner when a timer such as
//! `MachineMaxVacateTime` or the end of `MaxJobRetirementTime` is due),
//! with `KeyboardIdle`, `ConsoleIdle`, `LoadAvg` and `CondorLoadAvg` of
//! that moment. What the startd does to the job comes back as
//! [`Effect`]s: suspend it, continue it, ask it to leave (it takes its
//! `vacate_time` to exit, unless it is killed first), or it is gone.
//! Slots of the other machine types cost nothing: they are never
//! evaluated.
//!
//! Every effect is logged (the `execute` table: time, slot, job, user,
//! event and the expression or timer that caused it), and each job's
//! suspended time, suspensions, vacates and kills are counted.
//!
//! ```
//! use classad::ClassAd;
//! use negotiator_sim::simulate::execute::Execute;
//! use negotiator_sim::simulate::scenario::Scenario;
//!
//! let text = r#"
//!     duration = "1d"
//!     [[pool.machines]]
//!     name = "desk"
//!     cpus = 2
//!     memory = 4096
//!     __STARTD__
//!     [[users]]
//!     name = "amy"
//!     arrival = { process = "burst", at = 0, jobs = 1 }
//!     runtime = { distribution = "fixed", value = "1h" }
//! "#;
//! // HTCondor's default policy never suspends nor preempts: nothing to do.
//! let plain = Scenario::from_toml_str(&text.replace("__STARTD__", ""), "plain.toml".as_ref())?;
//! assert!(Execute::new(&plain, 1)?.is_none());
//!
//! // A desktop whose owner types from 9:00 to 9:30.
//! let desktop = text.replace("__STARTD__", r#"startd_config = "use POLICY : DESKTOP"
//!     owner = { sessions = { process = "periodic", at = "9h" }, length = { distribution = "fixed", value = "30m" } }"#);
//! let scenario = Scenario::from_toml_str(&desktop, "desktop.toml".as_ref())?;
//! let execute = Execute::new(&scenario, 1)?.expect("a desktop");
//! let mut ad = ClassAd::new();
//! execute.decorate(0, "slot1@desk0001", &mut ad, 9 * 3600 + 600);
//! assert_eq!(ad.eval_attr("KeyboardIdle"), classad::Value::Int(0));
//! execute.decorate(0, "slot1@desk0001", &mut ad, 10 * 3600);
//! assert_eq!(ad.eval_attr("KeyboardIdle"), classad::Value::Int(1800));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use classad::{ClassAd, Literal, Name};
use matchmaker::config::Config;
use matchmaker::startd::{ActionKind, Activity, Event, Policy, PolicyAd, Slot};

use super::owner::{OwnerActivity, OwnerState};
use super::pool::machine_name;
use super::random::Rng;
use super::scenario::Scenario;
use super::SimError;
use crate::table::{Column, Table};

/// Random streams of the owners start here (the users' streams count
/// from 0).
const OWNER_STREAMS: u64 = 1 << 40;

/// What the startd did to a running job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// The job is suspended: it stops running (and its completion with it).
    Suspend,
    /// The job runs again; it will complete at `complete_at` (seconds
    /// since the start) unless something else happens.
    Continue {
        /// The new completion time.
        complete_at: i64,
    },
    /// The job was asked to leave (soft or hard kill): its work is lost,
    /// it will not complete; it holds the slot until it is [`Effect::Gone`].
    Vacate,
    /// The job left the slot: it goes back to the queue, the slot's claim
    /// ends. `paused` seconds of its run were spent suspended (not lost
    /// work).
    Gone {
        /// Seconds of the run spent suspended.
        paused: i64,
    },
}

/// What happened when a job was started on a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The slot has no policy that can act: nothing to watch.
    Unwatched,
    /// The startd refused to run the job (`START` is not true for it now).
    Refused,
    /// The job runs; wake the slot at `wake` (seconds since the start)
    /// with this `serial`.
    Watched {
        /// When to evaluate the slot next.
        wake: i64,
        /// Names this watch (older wake-ups are ignored).
        serial: u32,
    },
}

/// A job starting on a watched slot.
#[derive(Debug, Clone, Copy)]
pub struct Starting<'a> {
    /// Its index in the run.
    pub job: usize,
    /// Its submitter's index in the run.
    pub submitter: usize,
    /// `cluster.proc`.
    pub name: &'a str,
    /// Its user.
    pub user: &'a str,
    /// Its ad (the claim's job: TARGET of the policy).
    pub ad: &'a ClassAd,
    /// Seconds of work it needs.
    pub runtime: i64,
    /// Seconds it takes to exit when asked to leave.
    pub vacate_time: i64,
}

/// What a wake-up of a watched slot gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Woken {
    /// The job on the slot.
    pub job: usize,
    /// What the startd did to it, in order.
    pub effects: Vec<Effect>,
    /// When to wake the slot next, and the watch's serial (`None`: the
    /// job is gone).
    pub next: Option<(i64, u32)>,
}

/// A job's figures from the execute side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobFigures {
    /// Seconds suspended in all.
    pub suspended: i64,
    /// Times suspended.
    pub suspensions: i64,
    /// Times the startd asked it to leave gracefully (soft kill).
    pub vacates: i64,
    /// Times it was killed (hard kill).
    pub kills: i64,
}

/// A machine type's side of the startd.
struct Kind {
    /// The policy, when it can act on running jobs.
    policy: Option<Arc<Policy>>,
}

/// A watched slot: the job running there and the startd's memory of it.
struct Watched {
    serial: u32,
    job: usize,
    submitter: usize,
    kind: usize,
    machine: Option<usize>,
    startd: Slot,
    /// The slot's ad as the startd evaluates its policy (the pool's slot
    /// ad, the policy, the owner's activity), kept up to date in place.
    ad: PolicyAd,
    /// The owner's activity and the job's load last written into `ad`.
    owner_set: Option<(OwnerState, f64)>,
    cpus: f64,
    started: i64,
    runtime: i64,
    vacate_time: i64,
    /// Seconds of work left when suspended.
    left: i64,
    suspended_since: Option<i64>,
    paused: i64,
    /// When the job, asked to leave, exits.
    exit_at: Option<i64>,
    slot_name: String,
    job_name: String,
    user: String,
}

/// The watched slots, by slot index.
#[derive(Default)]
struct WatchedSlots(Vec<Option<Box<Watched>>>);

impl WatchedSlots {
    fn get(&self, slot: &usize) -> Option<&Watched> {
        self.0.get(*slot).and_then(Option::as_deref)
    }

    fn remove(&mut self, slot: &usize) -> Option<Box<Watched>> {
        self.0.get_mut(*slot).and_then(Option::take)
    }

    fn insert(&mut self, slot: usize, w: Box<Watched>) {
        if self.0.len() <= slot {
            self.0.resize_with(slot + 1, || None);
        }
        self.0[slot] = Some(w);
    }

    fn values(&self) -> impl Iterator<Item = &Watched> {
        self.0.iter().filter_map(Option::as_deref)
    }
}

/// The `execute` table as it grows.
#[derive(Default, Clone)]
struct Log {
    time: Vec<i64>,
    slot: Vec<String>,
    job: Vec<String>,
    user: Vec<String>,
    event: Vec<String>,
    cause: Vec<String>,
    badput: Vec<i64>,
}

/// The execute side of a run.
pub struct Execute {
    epoch0: i64,
    kinds: Vec<Kind>,
    /// Host name to machine (index into `owners`).
    machines: HashMap<String, usize>,
    machine_kind: Vec<usize>,
    owners: Vec<Option<OwnerActivity>>,
    has_owners: bool,
    watched: WatchedSlots,
    next_serial: u32,
    jobs: Vec<JobFigures>,
    log: Log,
    vacates: i64,
    kills: i64,
    /// Vacates and kills so far, by submitter.
    submitters: Vec<(i64, i64)>,
}

/// Whether `policy` can do anything to a running job: suspend or preempt
/// it.
fn can_act(policy: &Policy) -> bool {
    ["SUSPEND", "PREEMPT", "SUSPEND_VANILLA", "PREEMPT_VANILLA"].iter().any(|name| {
        policy.expr(name).is_some_and(|e| !matches!(e.as_literal(), Some(Literal::Bool(false) | Literal::Undefined)))
    })
}

impl Execute {
    /// The execute side of `scenario`'s pool, or `None` when no machine
    /// type has an owner model or a policy that can act on running jobs
    /// (then the run is what it is without one).
    pub fn new(scenario: &Scenario, seed: u64) -> Result<Option<Execute>, SimError> {
        let mut kinds = Vec::new();
        let mut any = false;
        for (k, m) in scenario.machines.iter().enumerate() {
            let text = format!("{}\n{}\n", scenario.config, m.startd_config);
            let origin = format!("{} (pool.machines[{k}])", scenario.path.display());
            let config = Config::parse_str(&text, &origin).map_err(|e| SimError::Pool(e.to_string()))?;
            let policy = Policy::from_config(&config).map_err(|e| SimError::Pool(format!("{origin}: {e}")))?;
            let acts = m.owner.is_some() || can_act(&policy);
            any |= acts;
            kinds.push(Kind { policy: acts.then(|| Arc::new(policy)) });
        }
        if !any {
            return Ok(None);
        }
        let mut machines = HashMap::new();
        let mut machine_kind = Vec::new();
        let mut owners = Vec::new();
        for (k, m) in scenario.machines.iter().enumerate() {
            for i in 0..m.count {
                let n = owners.len();
                machines.insert(machine_name(m, i), n);
                machine_kind.push(k);
                owners.push(m.owner.as_ref().map(|model| {
                    let mut rng = Rng::new(seed, OWNER_STREAMS + n as u64);
                    OwnerActivity::draw(model, &mut rng, scenario.duration)
                }));
            }
        }
        Ok(Some(Execute {
            epoch0: scenario.start_time,
            kinds,
            machines,
            machine_kind,
            has_owners: owners.iter().any(Option::is_some),
            owners,
            watched: WatchedSlots::default(),
            next_serial: 0,
            jobs: Vec::new(),
            log: Log::default(),
            vacates: 0,
            kills: 0,
            submitters: Vec::new(),
        }))
    }

    /// Whether some machine has an owner model (so that slots' `START`
    /// may change with time alone).
    pub fn has_owners(&self) -> bool {
        self.has_owners
    }

    fn machine_of(&self, slot_name: &str) -> Option<usize> {
        let host = slot_name.rsplit('@').next()?;
        self.machines.get(host).copied()
    }

    fn owner_at(&self, machine: Option<usize>, now: i64) -> Option<OwnerState> {
        machine.and_then(|m| self.owners.get(m)).and_then(Option::as_ref).map(|o| o.at(now))
    }

    /// Adds the owner's activity at `now` to the ad of slot `slot` (named
    /// `slot_name`) as a cycle sees it: `KeyboardIdle`, `ConsoleIdle`,
    /// `LoadAvg` and `CondorLoadAvg`. Slots of machines without an owner
    /// model are left alone.
    pub fn decorate(&self, slot: usize, slot_name: &str, ad: &mut ClassAd, now: i64) {
        let machine = self.machine_of(slot_name);
        let Some(owner) = self.owner_at(machine, now) else { return };
        let condor = match self.watched.get(&slot) {
            Some(w) if w.machine == machine => condor_load(w),
            _ => 0.0,
        };
        insert_owner(ad, owner, condor);
    }

    /// A job starts on slot `slot` (named `slot_name`, with ad
    /// `slot_ad`) at `now`: the startd claims and activates the slot if
    /// its policy can act.
    pub fn start(&mut self, now: i64, slot: usize, slot_name: &str, slot_ad: &Arc<ClassAd>, job: Starting) -> Start {
        let Starting { job, submitter, name: job_name, user, ad: job_ad, runtime, vacate_time } = job;
        self.watched.remove(&slot);
        let machine = self.machine_of(slot_name);
        let Some(kind) = machine.map(|m| self.machine_kind[m]) else { return Start::Unwatched };
        let Some(policy) = self.kinds[kind].policy.clone() else { return Start::Unwatched };
        let cpus = match job_ad.eval_attr("RequestCpus") {
            classad::Value::Int(i) => i as f64,
            classad::Value::Real(r) => r,
            _ => 1.0,
        };
        let mut w = Box::new(Watched {
            serial: self.next_serial,
            job,
            submitter,
            kind,
            machine,
            startd: Slot::new(self.epoch0 + now),
            ad: PolicyAd::new(&policy, slot_ad.clone()),
            owner_set: None,
            cpus,
            started: now,
            runtime,
            vacate_time: vacate_time.max(0),
            left: 0,
            suspended_since: None,
            paused: 0,
            exit_at: None,
            slot_name: slot_name.to_string(),
            job_name: job_name.to_string(),
            user: user.to_string(),
        });
        self.next_serial = self.next_serial.wrapping_add(1);
        self.set_owner(&policy, &mut w, now);
        let t = self.epoch0 + now;
        let claimed = w.startd.advance(&policy, &mut w.ad, &Event::ClaimRequested { job: job_ad.clone() }, t);
        let s = w.startd.advance(&policy, &mut w.ad, &Event::JobStarted { job: None }, t);
        if !s.action_kinds().contains(&ActionKind::StartJob) {
            // The claim went at once (START false on the idle claim), or
            // the activation was refused.
            let cause = claimed
                .transitions
                .iter()
                .find(|t| t.to.0 == matchmaker::startd::State::Preempting)
                .map(|t| cause_name(&t.cause))
                .or_else(|| {
                    s.actions.iter().find(|a| a.kind == ActionKind::RefuseActivation).map(|a| cause_name(&a.cause))
                })
                .unwrap_or_else(|| "the claim was refused".to_string());
            self.record(now, &w, "refused", &cause, 0);
            return Start::Refused;
        }
        let wake = (s.next_check - self.epoch0).max(now + 1);
        let serial = w.serial;
        self.figures(job);
        self.watched.insert(slot, w);
        Start::Watched { wake, serial }
    }

    /// Brings the slot's ad for the state machine up to `now`: the
    /// owner's activity and the job's load.
    fn set_owner(&self, policy: &Policy, w: &mut Watched, now: i64) {
        let owner = self.owner_at(w.machine, now).unwrap_or(OwnerState { keyboard_idle: now + 86400, load: 0.0 });
        let condor = condor_load(w);
        let attrs = owner_attributes(owner, condor);
        match w.owner_set {
            // Only what changed (mostly KeyboardIdle and ConsoleIdle).
            Some((last, last_condor)) => {
                let idle = usize::from(last.keyboard_idle != owner.keyboard_idle) * 2;
                let load = usize::from(last.load != owner.load || last_condor != condor) * 4;
                let (idle_attrs, load_attrs) = attrs.split_at(2);
                let changed = idle_attrs[..idle].iter().chain(&load_attrs[..load]).cloned();
                w.ad.set_all(policy, changed);
            }
            None => w.ad.set_all(policy, attrs),
        }
        w.owner_set = Some((owner, condor));
    }

    fn figures(&mut self, job: usize) -> &mut JobFigures {
        if self.jobs.len() <= job {
            self.jobs.resize(job + 1, JobFigures::default());
        }
        &mut self.jobs[job]
    }

    /// The slot's time to be evaluated, `serial` naming the watch: the
    /// startd evaluates its policy (or the job, asked to leave, exits).
    /// Gives what happened to the job and when to wake the slot next
    /// (`None`: the watch is over, or `serial` is an old one).
    pub fn wake(&mut self, now: i64, slot: usize, serial: u32) -> Option<Woken> {
        let mut w = self.watched.remove(&slot)?;
        if w.serial != serial {
            self.watched.insert(slot, w);
            return None;
        }
        let policy = self.kinds[w.kind].policy.clone()?;
        let mut effects = Vec::new();
        let exiting = w.exit_at.is_some_and(|t| t <= now);
        let event = if exiting { Event::JobExited } else { Event::Tick };
        self.set_owner(&policy, &mut w, now);
        let s = w.startd.advance(&policy, &mut w.ad, &event, self.epoch0 + now);
        let mut gone = exiting;
        let mut k = 0;
        for (i, t) in s.transitions.iter().enumerate() {
            // Actions and transitions in the order the startd made them.
            while k < s.actions.len() && s.actions[k].after <= i {
                gone |= self.act(now, &mut w, &s.actions[k], &mut effects);
                k += 1;
            }
            if t.to.1 == Activity::Retiring && t.from.1 != Activity::Retiring && t.from.1 != Activity::Suspended {
                let cause = cause_name(&t.cause);
                self.record(now, &w, "retire", &cause, 0);
            }
        }
        while k < s.actions.len() {
            gone |= self.act(now, &mut w, &s.actions[k], &mut effects);
            k += 1;
        }
        if w.exit_at.is_some_and(|t| t <= now) && !exiting {
            // Asked to leave with no time to do it: it exits now.
            let _ = w.startd.advance(&policy, &mut w.ad, &Event::JobExited, self.epoch0 + now);
            gone = true;
        }
        if gone {
            self.close_suspension(&mut w, now);
            let lost = (now - w.started - w.paused).max(0);
            self.record(now, &w, "evicted", "", lost);
            effects.push(Effect::Gone { paused: w.paused });
            return Some(Woken { job: w.job, effects, next: None });
        }
        let mut wake = (s.next_check - self.epoch0).max(now + 1);
        if let Some(t) = w.exit_at {
            wake = wake.min(t.max(now + 1));
        }
        let job = w.job;
        w.serial = self.next_serial;
        self.next_serial = self.next_serial.wrapping_add(1);
        let serial = w.serial;
        self.watched.insert(slot, w);
        Some(Woken { job, effects, next: Some((wake, serial)) })
    }

    /// One action of the startd on the job; true when the job is gone.
    fn act(
        &mut self,
        now: i64,
        w: &mut Watched,
        action: &matchmaker::startd::Action,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let cause = cause_name(&action.cause);
        match action.kind {
            ActionKind::SuspendJob if w.exit_at.is_none() && w.suspended_since.is_none() => {
                w.left = (w.runtime - (now - w.started - w.paused)).max(0);
                w.suspended_since = Some(now);
                self.figures(w.job).suspensions += 1;
                self.record(now, w, "suspend", &cause, 0);
                effects.push(Effect::Suspend);
            }
            ActionKind::ContinueJob if w.exit_at.is_none() && w.suspended_since.is_some() => {
                self.close_suspension(w, now);
                self.record(now, w, "continue", &cause, 0);
                effects.push(Effect::Continue { complete_at: now + w.left });
            }
            ActionKind::VacateJob { .. } if w.exit_at.is_none() => {
                self.close_suspension(w, now);
                w.exit_at = Some(now + w.vacate_time);
                self.figures(w.job).vacates += 1;
                self.vacates += 1;
                self.submitter(w.submitter).0 += 1;
                self.record(now, w, "vacate", &cause, 0);
                effects.push(Effect::Vacate);
            }
            ActionKind::KillJob | ActionKind::HoldJob { .. } | ActionKind::KillStarter => {
                if w.exit_at.is_none() {
                    self.close_suspension(w, now);
                    effects.push(Effect::Vacate);
                }
                w.exit_at = Some(now);
                self.figures(w.job).kills += 1;
                self.kills += 1;
                self.submitter(w.submitter).1 += 1;
                self.record(now, w, "kill", &cause, 0);
                return true;
            }
            _ => {}
        }
        false
    }

    fn submitter(&mut self, k: usize) -> &mut (i64, i64) {
        if self.submitters.len() <= k {
            self.submitters.resize(k + 1, (0, 0));
        }
        &mut self.submitters[k]
    }

    /// For each of `count` submitters: its jobs suspended now, and its
    /// jobs' vacates and kills so far.
    pub fn by_submitter(&self, count: usize) -> Vec<(i64, i64, i64)> {
        let mut out: Vec<(i64, i64, i64)> =
            (0..count).map(|k| self.submitters.get(k).map_or((0, 0, 0), |&(v, x)| (0, v, x))).collect();
        for w in self.watched.values() {
            if let (Some(_), Some(o)) = (w.suspended_since, out.get_mut(w.submitter)) {
                o.0 += 1;
            }
        }
        out
    }

    fn close_suspension(&mut self, w: &mut Watched, now: i64) {
        if let Some(since) = w.suspended_since.take() {
            w.paused += now - since;
            self.figures(w.job).suspended += now - since;
        }
    }

    /// The job on slot `slot` ends there at `now` (it completed, or the
    /// negotiator preempted it): the watch is over. Gives the seconds of
    /// its run it spent suspended.
    pub fn end(&mut self, now: i64, slot: usize) -> i64 {
        let Some(mut w) = self.watched.remove(&slot) else { return 0 };
        self.close_suspension(&mut w, now);
        w.paused
    }

    /// Seconds the job on slot `slot` (if watched) has spent suspended in
    /// its run so far, at `now`.
    pub fn paused(&self, slot: Option<usize>, now: i64) -> i64 {
        slot.and_then(|s| self.watched.get(&s))
            .map_or(0, |w| w.paused + w.suspended_since.map_or(0, |since| (now - since).max(0)))
    }

    /// Job `job`'s figures so far (its suspended time without a
    /// suspension still going on).
    pub fn job(&self, job: usize) -> JobFigures {
        self.jobs.get(job).copied().unwrap_or_default()
    }

    /// Job `job`'s figures at `now`, counting a suspension still going on
    /// on slot `slot` (the one it holds).
    pub fn job_at(&self, job: usize, slot: Option<usize>, now: i64) -> JobFigures {
        let open = slot
            .and_then(|s| self.watched.get(&s))
            .filter(|w| w.job == job)
            .and_then(|w| w.suspended_since)
            .map_or(0, |since| (now - since).max(0));
        let mut f = self.job(job);
        f.suspended += open;
        f
    }

    /// Jobs suspended now, and the vacates and kills since the last call.
    pub fn cycle_figures(&mut self) -> (i64, i64, i64) {
        let suspended = self.watched.values().filter(|w| w.suspended_since.is_some()).count() as i64;
        let figures = (suspended, self.vacates, self.kills);
        self.vacates = 0;
        self.kills = 0;
        figures
    }

    fn record(&mut self, now: i64, w: &Watched, event: &str, cause: &str, badput: i64) {
        let l = &mut self.log;
        l.time.push(now);
        l.slot.push(w.slot_name.clone());
        l.job.push(w.job_name.clone());
        l.user.push(w.user.clone());
        l.event.push(event.to_string());
        l.cause.push(cause.to_string());
        l.badput.push(badput);
    }

    /// The `execute` table: one row per thing the startd did to a job.
    pub fn table(&self) -> Table {
        let l = self.log.clone();
        let mut t = Table::new("execute");
        t.push("time", Column::Int(l.time));
        t.push("slot", Column::Str(l.slot));
        t.push("job", Column::Str(l.job));
        t.push("user", Column::Str(l.user));
        t.push("event", Column::Str(l.event));
        t.push("cause", Column::Str(l.cause));
        t.push("badput", Column::Int(l.badput));
        t
    }
}

/// What caused a transition or an action, for the log: the expression or
/// timer's name, else the startd's words.
fn cause_name(cause: &matchmaker::startd::Cause) -> String {
    cause.knob().map_or_else(|| cause.to_string(), str::to_string)
}

/// The load a watched job puts on its slot: its CPUs while it runs.
fn condor_load(w: &Watched) -> f64 {
    if w.suspended_since.is_some() || w.exit_at.is_some() {
        0.0
    } else {
        w.cpus
    }
}

fn insert_owner(ad: &mut ClassAd, owner: OwnerState, condor: f64) {
    for (name, value) in owner_attributes(owner, condor) {
        ad.insert(name, value);
    }
}

/// What the owner's activity and the job's load make of a slot's
/// `KeyboardIdle`, `ConsoleIdle`, `LoadAvg`, `CondorLoadAvg`,
/// `TotalLoadAvg` and `TotalCondorLoadAvg`.
fn owner_attributes(owner: OwnerState, condor: f64) -> [(Name, classad::Expr); 6] {
    static NAMES: std::sync::OnceLock<[Name; 6]> = std::sync::OnceLock::new();
    let [keyboard, console, load, condor_load, total, total_condor] = *NAMES.get_or_init(|| {
        ["KeyboardIdle", "ConsoleIdle", "LoadAvg", "CondorLoadAvg", "TotalLoadAvg", "TotalCondorLoadAvg"].map(Name::new)
    });
    [
        (keyboard, owner.keyboard_idle.into()),
        (console, owner.keyboard_idle.into()),
        (load, (owner.load + condor).into()),
        (condor_load, condor.into()),
        (total, (owner.load + condor).into()),
        (total_condor, condor.into()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(text: &str) -> Policy {
        Policy::parse_str(text, "test.conf").expect("a policy")
    }

    #[test]
    fn only_policies_that_suspend_or_preempt_can_act() {
        assert!(!can_act(&policy("")), "HTCondor's defaults never suspend nor preempt");
        assert!(!can_act(&policy("use POLICY : ALWAYS_RUN_JOBS")));
        assert!(!can_act(&policy("START = KeyboardIdle > 900\nRANK = TARGET.KFlops")));
        assert!(can_act(&policy("use POLICY : DESKTOP")));
        assert!(can_act(&policy("use POLICY : UWCS_DESKTOP")));
        assert!(can_act(&policy("use POLICY : LIMIT_JOB_RUNTIMES(3600)")));
        assert!(can_act(&policy("PREEMPT_VANILLA = TotalLoadAvg > 4")));
        assert!(!can_act(&policy("SUSPEND = False\nPREEMPT = FALSE")));
    }

    #[test]
    fn machine_types_without_owners_or_acting_policies_are_not_watched() {
        let text = |startd: &str, owner: &str| {
            format!(
                "[[pool.machines]]\nname = \"a\"\ncpus = 1\nmemory = 1024\nstartd_config = \"{startd}\"\n{owner}\n\
                 [[users]]\nname = \"u\"\narrival = {{ process = \"burst\", at = 0, jobs = 1 }}\n\
                 runtime = {{ distribution = \"fixed\", value = 60 }}\n"
            )
        };
        let read = |t: String| Scenario::from_toml_str(&t, "t.toml".as_ref()).expect("a scenario");
        assert!(Execute::new(&read(text("use POLICY : ALWAYS_RUN_JOBS", "")), 0).expect("builds").is_none());
        let e = Execute::new(&read(text("use POLICY : LIMIT_JOB_RUNTIMES(60)", "")), 0).expect("builds");
        let e = e.expect("a policy that preempts");
        assert!(!e.has_owners());
        let owner =
            "owner = { sessions = { process = \"periodic\", at = 0 }, length = { distribution = \"fixed\", value = 1 } }";
        let e = Execute::new(&read(text("", owner)), 0).expect("builds").expect("owners");
        assert!(e.has_owners());
        let bad = Execute::new(&read(text("PREEMPT = (", "")), 0).err().expect("a bad policy").to_string();
        assert!(bad.contains("pool.machines[0]") && bad.contains("PREEMPT"), "{bad}");
    }
}
