//! The consistency check of a run, for tests.

use std::collections::HashMap;

use super::{Simulation, State};

impl Simulation {
    /// Checks that the run is consistent: every job is in exactly one
    /// state and holds at most one slot, the slot it holds names it, no
    /// slot holds two jobs, the counts per submitter are the jobs', and no
    /// machine hands out more CPUs or memory than it has. Meant for tests;
    /// the message says what is wrong.
    pub fn check(&mut self) -> Result<(), String> {
        let mut holder: HashMap<usize, usize> = HashMap::new();
        let mut counts = vec![(0u32, 0u32, 0u32); self.submitters.len()];
        let mut weights = vec![0.0f64; self.submitters.len()];
        for (j, job) in self.jobs.iter() {
            let in_idle = self.classes[job.class].idle.contains(&(job.id, j));
            match job.state {
                State::Idle => {
                    counts[job.submitter].0 += 1;
                    if !in_idle || job.slot.is_some() {
                        return Err(format!("idle job {} is not queued or holds a slot", job.id));
                    }
                }
                State::Matched | State::Running => {
                    if job.state == State::Matched {
                        counts[job.submitter].1 += 1;
                    } else {
                        counts[job.submitter].2 += 1;
                    }
                    let Some(slot) = job.slot else {
                        return Err(format!("job {} runs without a slot", job.id));
                    };
                    if in_idle {
                        return Err(format!("job {} is queued and holds a slot", job.id));
                    }
                    let s = &self.pool.slots[slot];
                    if !s.alive || s.claim.as_ref().map(|c| c.job) != Some(j) {
                        return Err(format!("job {} holds slot {} which does not name it", job.id, s.name));
                    }
                    if holder.insert(slot, j).is_some() {
                        return Err(format!("slot {} holds two jobs", s.name));
                    }
                    weights[job.submitter] += s.weight;
                }
                State::Done => {
                    if in_idle || job.slot.is_some() {
                        return Err(format!("finished job {} is queued or holds a slot", job.id));
                    }
                    let suspended = self.execute.as_ref().map_or(0, |e| e.job(j).suspended);
                    if job.end - job.submit != job.wait + job.badput + job.runtime + suspended {
                        return Err(format!(
                            "job {}: {} s from submission to end, but waited {} s, lost {} s, ran {} s and was suspended {} s",
                            job.id,
                            job.end - job.submit,
                            job.wait,
                            job.badput,
                            job.runtime,
                            suspended
                        ));
                    }
                }
            }
        }
        for (i, s) in self.pool.slots.iter().enumerate() {
            if let (true, Some(c)) = (s.alive, &s.claim) {
                if c.given_back.is_some() {
                    // Its job is done; its submitter is charged until the
                    // collector hears of it.
                    if holder.contains_key(&i) {
                        return Err(format!("slot {} was given back but holds a job", s.name));
                    }
                    weights[c.submitter] += s.weight;
                    continue;
                }
                if holder.get(&i) != Some(&c.job) {
                    return Err(format!("slot {} is claimed for a job that does not hold it", s.name));
                }
            }
        }
        for (k, s) in self.submitters.iter().enumerate() {
            if (s.idle, s.matched, s.running) != counts[k] {
                return Err(format!(
                    "{}: counted {:?} idle/matched/running, the jobs say {:?}",
                    s.name,
                    (s.idle, s.matched, s.running),
                    counts[k]
                ));
            }
            if (s.weight - weights[k]).abs() > 1e-6 {
                return Err(format!("{}: holds weight {}, its slots weigh {}", s.name, s.weight, weights[k]));
            }
        }
        self.pool.check()
    }
}
