//! A job's claim from match to end, on the schedd's side: the slot given
//! to it, its start (under the startd's policy, when the machine has one
//! that acts on running jobs), its completion and the claim reused
//! (CLAIM_WORKLIFE) or given back, its eviction, and what the startd's
//! policy does to it while it runs.

use super::{Event, Simulation, State};
use crate::simulate::execute::{Effect, Start, Starting};
use crate::simulate::pool::Claim;

impl Simulation {
    /// Gives slot `slot` to idle job `j` at `now`; it starts after `delay`.
    pub(super) fn assign(&mut self, now: i64, j: usize, slot: usize, delay: i64) {
        let job = &mut self.jobs[j];
        self.classes[job.class].idle.remove(&(job.id, j));
        job.state = State::Matched;
        job.slot = Some(slot);
        job.epoch += 1;
        let (submitter, class, epoch) = (job.submitter, job.class, job.epoch);
        let s = &mut self.submitters[submitter];
        s.idle -= 1;
        s.matched += 1;
        s.weight += self.pool.slots[slot].weight;
        self.pool.claim(slot, Claim { job: j, submitter, class, since: now, given_back: None });
        self.queue.schedule(now.saturating_add(delay), Event::Start { job: j, epoch });
    }

    /// The index of slot `slot`'s name in `slot_names`, added if new.
    fn slot_name_id(&mut self, slot: usize) -> u32 {
        let name = &self.pool.slots[slot].name;
        if let Some(&id) = self.slot_name_index.get(name) {
            return id;
        }
        let id = u32::try_from(self.slot_names.len()).unwrap_or(u32::MAX);
        self.slot_names.push(name.clone());
        self.slot_name_index.insert(name.clone(), id);
        id
    }

    /// Job `j` loses its slot at `now` and is idle again; the work done is
    /// lost. The slot stays claimed (by whoever takes it next).
    pub(super) fn evict(&mut self, now: i64, j: usize) {
        let job = &mut self.jobs[j];
        let slot = job.slot.take();
        let submitter = job.submitter;
        let paused = match (&mut self.execute, slot) {
            (Some(e), Some(slot)) => e.end(now, slot),
            _ => 0,
        };
        match job.state {
            State::Running => {
                job.badput += now - job.started - paused;
                self.submitters[submitter].running -= 1;
            }
            State::Matched => {
                // Matched but not started: it waited all along.
                job.wait += now - job.idle_since;
                self.submitters[submitter].matched -= 1;
            }
            _ => return,
        }
        job.preemptions += 1;
        job.state = State::Idle;
        job.idle_since = now;
        job.epoch += 1;
        self.classes[job.class].idle.insert((job.id, j));
        let s = &mut self.submitters[submitter];
        s.idle += 1;
        if let Some(slot) = slot {
            s.weight -= self.pool.slots[slot].weight;
            if let Some(c) = &mut self.pool.slots[slot].claim {
                // the claim is taken over; its weight stays busy
                c.job = usize::MAX;
            }
        }
        self.quiet_since_futile_cycle = false;
    }

    pub(super) fn on_start(&mut self, now: i64, j: usize, epoch: u32) {
        let Some(job) = self.jobs.get(j) else { return };
        if job.epoch != epoch || job.state != State::Matched {
            return;
        }
        if self.execute.is_some() && !self.execute_start(now, j) {
            return;
        }
        // The slot it runs on is its `slot` in the jobs table (a job
        // matched but never started has none).
        if let Some(slot) = self.jobs[j].slot {
            let id = self.slot_name_id(slot);
            self.jobs[j].last_slot = id;
        }
        let job = &mut self.jobs[j];
        job.state = State::Running;
        job.started = now;
        if job.first_start < 0 {
            job.first_start = now;
        }
        job.wait += now - job.idle_since;
        let s = &mut self.submitters[job.submitter];
        s.matched -= 1;
        s.running += 1;
        self.queue.schedule(now.saturating_add(job.runtime), Event::Complete { job: j, epoch });
    }

    pub(super) fn on_complete(&mut self, now: i64, j: usize, epoch: u32) {
        if self.jobs.get(j).is_none() {
            return;
        }
        let job = &mut self.jobs[j];
        if job.epoch != epoch || job.state != State::Running {
            return;
        }
        job.state = State::Done;
        job.end = now;
        let Some(slot) = job.slot.take() else { return };
        let (submitter, class) = (job.submitter, job.class);
        if let Some(e) = &mut self.execute {
            e.end(now, slot);
        }
        let s = &mut self.submitters[submitter];
        s.running -= 1;
        // CLAIM_WORKLIFE: the schedd keeps the claim for the next idle job
        // of the same autocluster unless the startd says it is spent: its
        // age in whole seconds is more than CLAIM_WORKLIFE (a claim exactly
        // that old is still reused).
        let since = self.pool.slots[slot].claim.as_ref().map_or(now, |c| c.since);
        let reusable = self.worklife < 0 || now - since <= self.worklife;
        if reusable {
            if let Some(&(_, next)) = self.classes[class].idle.first() {
                self.submitters[submitter].weight -= self.pool.slots[slot].weight;
                self.pool.slots[slot].claim = None;
                self.pool.busy_weight -= self.pool.slots[slot].weight;
                self.assign(now, next, slot, 0);
                if let Some(c) = &mut self.pool.slots[slot].claim {
                    c.since = since;
                }
                return;
            }
        }
        if self.update_delay > 0 {
            // The collector hears of it a moment later.
            if let Some(c) = &mut self.pool.slots[slot].claim {
                c.given_back = Some(now);
            }
            self.given_back.push_back((now + self.update_delay, slot));
            return;
        }
        self.release(submitter, slot);
    }

    /// Frees a slot whose claim `submitter` gave back.
    pub(super) fn release(&mut self, submitter: usize, slot: usize) {
        self.submitters[submitter].weight -= self.pool.slots[slot].weight;
        self.pool.release(slot);
        self.quiet_since_futile_cycle = false;
    }

    /// Releases the claims given back whose news has reached the collector
    /// by `now` (see `update_delay`).
    pub(super) fn release_given_back(&mut self, now: i64) {
        while let Some(&(at, slot)) = self.given_back.front() {
            if at > now {
                break;
            }
            self.given_back.pop_front();
            let Some(c) = &self.pool.slots[slot].claim else { continue };
            if c.given_back.is_none() {
                // Taken over by a match in the meantime.
                continue;
            }
            let submitter = c.submitter;
            self.release(submitter, slot);
        }
    }

    /// Matched job `j` starts on its slot at `now` under the startd's
    /// policy; false when the startd refused it (it is idle again).
    pub(super) fn execute_start(&mut self, now: i64, j: usize) -> bool {
        let Some(slot) = self.jobs[j].slot else { return true };
        if !self.pool.slots[slot].ad.contains("Name") {
            self.pool.ensure_ads();
        }
        let Some(execute) = self.execute.as_mut() else { return true };
        let job = &self.jobs[j];
        let class = &self.classes[job.class];
        let name = job.id.to_string();
        let s = &self.pool.slots[slot];
        let starting = Starting {
            job: j,
            submitter: job.submitter,
            name: &name,
            user: &self.submitters[job.submitter].user,
            ad: &class.ad,
            runtime: job.runtime,
            vacate_time: class.vacate_time,
        };
        match execute.start(now, slot, &s.name, &s.ad, starting) {
            Start::Unwatched => true,
            Start::Watched { wake, serial } => {
                self.queue.schedule(wake, Event::Execute { slot, serial });
                true
            }
            Start::Refused => {
                // Back to the queue, as a claim the startd would not run;
                // not a preemption.
                self.evict(now, j);
                self.jobs[j].preemptions -= 1;
                self.pool.release(slot);
                false
            }
        }
    }

    /// The startd evaluates watched slot `slot` at `now`.
    pub(super) fn on_execute(&mut self, now: i64, slot: usize, serial: u32) {
        let Some(woken) = self.execute.as_mut().and_then(|e| e.wake(now, slot, serial)) else { return };
        let j = woken.job;
        for effect in woken.effects {
            match effect {
                // Its completion is off until it continues.
                Effect::Suspend | Effect::Vacate => self.jobs[j].epoch += 1,
                Effect::Continue { complete_at } => {
                    let epoch = self.jobs[j].epoch;
                    self.queue.schedule(complete_at, Event::Complete { job: j, epoch });
                }
                Effect::Gone { paused } => {
                    self.evict(now, j);
                    self.jobs[j].badput -= paused;
                    self.pool.release(slot);
                }
            }
        }
        if let Some((wake, serial)) = woken.next {
            self.queue.schedule(wake, Event::Execute { slot, serial });
        }
    }
}
