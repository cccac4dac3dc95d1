//! Jobs arriving: the submitters and autoclusters (job classes) they are
//! queued under, the scenario's users submitting at their rates, and a
//! trace's jobs at their submission times.

use std::collections::BTreeSet;
use std::sync::Arc;

use classad::ClassAd;
use matchmaker::autocluster::JobId;

use super::{Class, ClassKey, Event, Job, Shape, Simulation, State, Submitter, MAX_RUNTIME};
use crate::simulate::scenario::Arrival;

impl Simulation {
    pub(super) fn submitter(&mut self, user: &str, group: Option<&str>) -> usize {
        let key = (user.to_string(), group.unwrap_or("").to_string());
        if let Some(&k) = self.submitter_index.get(&key) {
            return k;
        }
        let name = match group {
            Some(g) => format!("{g}.{user}"),
            None => user.to_string(),
        };
        let accounting_group = self.accountant.group_of(&name).to_string();
        self.submitters.push(Submitter {
            name,
            user: user.to_string(),
            group: group.unwrap_or("").to_string(),
            accounting_group,
            idle: 0,
            matched: 0,
            running: 0,
            weight: 0.0,
        });
        let k = self.submitters.len() - 1;
        self.submitter_index.insert(key, k);
        k
    }

    pub(super) fn class(
        &mut self,
        submitter: usize,
        (cpus, memory, disk, requirements, rank, limits, vacate_time): Shape,
    ) -> usize {
        let key = ClassKey { submitter, cpus, memory, disk, requirements, rank, limits, vacate_time };
        if let Some(&c) = self.class_index.get(&key) {
            return c;
        }
        let s = &self.submitters[submitter];
        let mut ad = ClassAd::new();
        ad.insert("MyType", "Job");
        ad.insert("JobUniverse", 5i64);
        ad.insert("JobStatus", 1i64);
        ad.insert("Owner", s.user.split('@').next().unwrap_or(""));
        ad.insert("User", s.user.as_str());
        if !s.group.is_empty() {
            ad.insert("AccountingGroup", s.name.split('@').next().unwrap_or(""));
        }
        ad.insert("RequestCpus", i64::from(cpus));
        ad.insert("RequestMemory", memory);
        ad.insert("RequestDisk", disk);
        let requirements = key.requirements.clone().unwrap_or_else(|| {
            "TARGET.Cpus >= RequestCpus && TARGET.Memory >= RequestMemory && TARGET.Disk >= RequestDisk".to_string()
        });
        // Checked when the scenario was read; a trace's own text parses too.
        let _ = ad.insert_expr("Requirements", &requirements);
        if let Some(rank) = &key.rank {
            let _ = ad.insert_expr("Rank", rank);
        }
        if let Some(limits) = &key.limits {
            ad.insert("ConcurrencyLimits", limits.as_str());
            self.any_limits = true;
        }
        let vacate_time = key.vacate_time;
        self.classes.push(Class { submitter, ad: Arc::new(ad), idle: BTreeSet::new(), vacate_time });
        let c = self.classes.len() - 1;
        self.class_index.insert(key, c);
        c
    }

    /// The time of source `k`'s next submission after `after`.
    pub(super) fn next_arrival(&mut self, k: usize, after: f64) -> Option<i64> {
        let s = &mut self.sources[k];
        if s.left == Some(0) {
            return None;
        }
        let t = match s.arrival {
            Arrival::Poisson { mean_interval, diurnal_amplitude, peak } => {
                let a = diurnal_amplitude;
                let mut t = after;
                loop {
                    t += s.rng.exponential(mean_interval / (1.0 + a));
                    if a == 0.0 {
                        break;
                    }
                    let phase = std::f64::consts::TAU * (t - peak) / 86400.0;
                    if s.rng.uniform() * (1.0 + a) <= 1.0 + a * phase.cos() {
                        break;
                    }
                }
                t
            }
            Arrival::Burst { at, every, .. } => match (s.fired, every) {
                (false, _) => at,
                (true, Some(e)) => after + e,
                (true, None) => return None,
            },
        };
        s.fired = true;
        // Events past the end stay in the queue: the run stops before them
        // (and an `until` beyond the scenario's duration still has them).
        Some(t.ceil() as i64)
    }

    pub(super) fn add_job(&mut self, now: i64, submitter: usize, class: usize, id: JobId, runtime: i64) {
        let j = self.jobs.len();
        self.jobs.push(Job {
            id,
            submitter,
            class,
            submit: now,
            runtime: runtime.clamp(0, MAX_RUNTIME),
            state: State::Idle,
            idle_since: now,
            started: -1,
            first_start: -1,
            end: -1,
            wait: 0,
            badput: 0,
            preemptions: 0,
            slot: None,
            last_slot: u32::MAX,
            epoch: 0,
        });
        self.classes[class].idle.insert((id, j));
        self.submitters[submitter].idle += 1;
        self.quiet_since_futile_cycle = false;
    }

    pub(super) fn on_arrival(&mut self, now: i64, k: usize) {
        let (jobs, submitter, key) = {
            let s = &self.sources[k];
            let jobs = match s.arrival {
                Arrival::Burst { jobs, .. } => jobs,
                Arrival::Poisson { .. } => u64::from(s.cluster_size),
            };
            (jobs, s.submitter, s.key.clone())
        };
        let jobs = match self.sources[k].left {
            Some(left) => jobs.min(left),
            None => jobs,
        };
        if let Some(left) = &mut self.sources[k].left {
            *left -= jobs;
        }
        let class = self.class(submitter, key);
        let cluster = self.next_cluster;
        self.next_cluster += 1;
        for proc in 0..jobs {
            let source = &mut self.sources[k];
            let runtime = source.runtime.sample(&mut source.rng).round() as i64;
            self.add_job(now, submitter, class, JobId { cluster, proc: proc as i64 }, runtime);
        }
        if let Some(t) = self.next_arrival(k, now as f64) {
            self.queue.schedule(t, Event::Arrival { source: k });
        }
    }

    pub(super) fn on_trace(&mut self, now: i64, mut next: usize) {
        while let Some(job) = self.trace.get(next) {
            if job.submit - self.trace_offset > now {
                break;
            }
            let (user, group) = (job.user.clone(), job.group.clone());
            let key = (job.cpus, job.memory, job.disk, job.requirements.clone(), None, None, 0);
            let (id, runtime) = (JobId { cluster: job.cluster, proc: job.proc }, job.runtime);
            let submitter = self.submitter(&user, group.as_deref());
            let class = self.class(submitter, key);
            self.add_job(now, submitter, class, id, runtime);
            next += 1;
        }
        if let Some(job) = self.trace.get(next) {
            self.queue.schedule(job.submit - self.trace_offset, Event::Trace { next });
        }
    }
}
