//! The periodic evaluation of a step: the latches, the timers, and the
//! policy expressions of the slot's state and activity.

use classad::{EvalContext, Name};

use super::{because, integer, Run};
use crate::startd::state_machine::event::{ActionKind, Cause};
use crate::startd::state_machine::memory::Latch;
use crate::startd::state_machine::names::names;
use crate::startd::state_machine::{Activity, State};

impl Run<'_> {
    // ----- the periodic evaluation ----------------------------------------

    pub(super) fn evaluate_latches(&mut self) {
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

    pub(super) fn timers(&mut self) {
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

    pub(super) fn eval_policy(&mut self) {
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

    pub(super) fn eval_claimed(&mut self) {
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
}
