//! The events of a step (a match, a claim request, a job's start and
//! exit, a release, a drain, ...), and when the slot is next evaluated.

use classad::{ClassAd, Value};

use super::{because, integer, truth, Run};
use crate::startd::state_machine::claim::{Pending, VANILLA, VM};
use crate::startd::state_machine::event::{ActionKind, Cause, DrainHow, Event};
use crate::startd::state_machine::memory::Draining;
use crate::startd::state_machine::names::names;
use crate::startd::state_machine::{Activity, State};

impl Run<'_> {
    // ----- events -----------------------------------------------------

    pub(super) fn handle(&mut self, event: &Event) {
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

    pub(super) fn claim_requested(&mut self, job: &ClassAd) {
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

    pub(super) fn activate(&mut self, job: Option<&ClassAd>) {
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

    pub(super) fn job_exited(&mut self) {
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

    pub(super) fn next_check(&self) -> i64 {
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
