//! The run: the event loop, the schedd's side (queues, claims, claim
//! reuse, preemption) and the negotiation cycle each interval.
//!
//! Each cycle gives the negotiator the slots it can use (unclaimed slots
//! and partitionable slots with something left; claimed slots too when
//! they could be preempted) and, for each submitter, one ad standing for
//! the slots it holds otherwise (see [`placeholder`]): the pool's weight,
//! each submitter's usage and the accountant's charges are those of the
//! whole pool, while the cycle need not look at thousands of busy slots
//! it could not take. A cycle that cannot match anything (no idle job, or
//! no free slot and no slot that could be preempted) only brings the
//! accountant up to date, as HTCondor's would.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use classad::ClassAd;
use matchmaker::accountant::{Accountant, AccountantConfig};
use matchmaker::autocluster::{JobId, ResourceRequest, SubmitterQueue};
use matchmaker::candidates::ClaimKind;
use matchmaker::config::{Config, ConfigError};
use matchmaker::negotiator::{GroupReport, Negotiator, RejectReason};

use super::events::EventQueue;
use super::execute::{Effect, Execute, Start, Starting};
use super::pool::{placeholder, Claim, Pool, SlotKind};
use super::random::{Distribution, Rng};
use super::results::{JobRow, JobSink, Recorder, Results};
use super::scenario::{Arrival, Scenario, TraceFormat};
use super::trace::{read_trace, TraceJob};
use super::SimError;

/// The longest run time a job is given (a hundred years): longer draws
/// of a heavy-tailed distribution are cut to it.
const MAX_RUNTIME: i64 = 100 * 365 * 86400;

/// Where a run is, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Simulated seconds since the start.
    pub time: i64,
    /// Simulated seconds the run lasts.
    pub until: i64,
    /// Events handled so far.
    pub events: u64,
    /// Negotiation cycles so far.
    pub cycles: u64,
    /// Of those, cycles that ran the match phase.
    pub full_cycles: u64,
    /// Whether this report follows a cycle that ran the match phase.
    pub after_full_cycle: bool,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    Cycle,
    Arrival {
        source: usize,
    },
    Trace {
        next: usize,
    },
    Start {
        job: usize,
        epoch: u32,
    },
    Complete {
        job: usize,
        epoch: u32,
    },
    /// The startd evaluates a watched slot ([`Execute`]).
    Execute {
        slot: usize,
        serial: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    Matched,
    Running,
    Done,
}

struct Job {
    id: JobId,
    submitter: usize,
    class: usize,
    submit: i64,
    runtime: i64,
    state: State,
    idle_since: i64,
    started: i64,
    first_start: i64,
    end: i64,
    wait: i64,
    badput: i64,
    preemptions: i64,
    slot: Option<usize>,
    /// The last slot's name, as an index into `Simulation::slot_names`
    /// (`u32::MAX`: none).
    last_slot: u32,
    epoch: u32,
}

/// The run's jobs by index (the order they were submitted in), less those
/// retired: the jobs at the front that finished, as every job before them
/// did, whose rows have gone to the recorder.
#[derive(Default)]
struct Jobs {
    /// Jobs retired: the index of the first job held.
    base: usize,
    held: std::collections::VecDeque<Job>,
}

impl Jobs {
    /// Jobs submitted, retired or not.
    fn len(&self) -> usize {
        self.base + self.held.len()
    }

    fn push(&mut self, job: Job) {
        self.held.push_back(job);
    }

    /// Job `j`, unless it is retired.
    fn get(&self, j: usize) -> Option<&Job> {
        self.held.get(j.checked_sub(self.base)?)
    }

    /// The jobs held, with their indices.
    fn iter(&self) -> impl Iterator<Item = (usize, &Job)> {
        let base = self.base;
        self.held.iter().enumerate().map(move |(k, j)| (base + k, j))
    }

    /// Takes the first job held if it is done.
    fn retire_first_done(&mut self) -> Option<(usize, Job)> {
        if self.held.front()?.state != State::Done {
            return None;
        }
        let job = self.held.pop_front()?;
        self.base += 1;
        Some((self.base - 1, job))
    }
}

impl std::ops::Index<usize> for Jobs {
    type Output = Job;
    fn index(&self, j: usize) -> &Job {
        &self.held[j - self.base]
    }
}

impl std::ops::IndexMut<usize> for Jobs {
    fn index_mut(&mut self, j: usize) -> &mut Job {
        &mut self.held[j - self.base]
    }
}

struct Submitter {
    /// The accountant's name: `user@domain` or `group.user@domain`.
    name: String,
    user: String,
    group: String,
    /// The accountant's group of the submitter (for the groups table).
    accounting_group: String,
    idle: u32,
    matched: u32,
    running: u32,
    /// Weight of the slots it holds.
    weight: f64,
}

struct Class {
    submitter: usize,
    ad: Arc<ClassAd>,
    /// Idle jobs in the schedd's order.
    idle: BTreeSet<(JobId, usize)>,
    /// Seconds its jobs take to exit when the startd asks them to.
    vacate_time: i64,
}

#[derive(Hash, PartialEq, Eq)]
struct ClassKey {
    submitter: usize,
    cpus: u32,
    memory: i64,
    disk: i64,
    requirements: Option<String>,
    rank: Option<String>,
    limits: Option<String>,
    vacate_time: i64,
}

/// What makes jobs alike: `RequestCpus`, `RequestMemory`, `RequestDisk`,
/// `Requirements`, `Rank`, `ConcurrencyLimits` and the seconds a job takes
/// to exit when asked.
type Shape = (u32, i64, i64, Option<String>, Option<String>, Option<String>, i64);

struct Source {
    submitter: usize,
    rng: Rng,
    arrival: Arrival,
    runtime: Distribution,
    cluster_size: u32,
    key: Shape,
    left: Option<u64>,
    fired: bool,
}

/// A simulation, ready to run.
pub struct Simulation {
    until: i64,
    epoch0: i64,
    claim_delay: i64,
    /// Seconds before the collector hears that a claim was given back.
    update_delay: i64,
    /// Claims given back, with when the collector hears of it, in order.
    given_back: std::collections::VecDeque<(i64, usize)>,
    interval: i64,
    worklife: i64,
    /// CLAIM_PARTITIONABLE_LEFTOVERS: the schedd goes on carving a matched
    /// partitionable slot for the autocluster's next jobs.
    leftovers: bool,
    record_every: i64,
    negotiator: Negotiator,
    accountant: Accountant,
    pool: Pool,
    submitters: Vec<Submitter>,
    submitter_index: HashMap<(String, String), usize>,
    classes: Vec<Class>,
    class_index: HashMap<ClassKey, usize>,
    jobs: Jobs,
    /// Where retired jobs' rows go, if not to the results, and how many
    /// at a time.
    job_sink: Option<JobSink>,
    job_batch: usize,
    sources: Vec<Source>,
    trace: Vec<TraceJob>,
    trace_offset: i64,
    queue: EventQueue<Event>,
    recorder: Recorder,
    /// `PREEMPTION_REQUIREMENTS` may be true: every claimed slot is a
    /// candidate.
    priority_preemption: bool,
    /// Placeholders stand for busy slots exactly (slot weights on, no
    /// constraint on the slots or the pie's size).
    aggregate: bool,
    next_cluster: i64,
    events: u64,
    cycles: u64,
    full_cycles: u64,
    last_groups: Vec<GroupReport>,
    last_recorded: Option<i64>,
    /// Nothing changed since a cycle that matched nothing, every request
    /// rejected as matching no slot.
    quiet_since_futile_cycle: bool,
    /// Each submitter's last stand-in ad.
    /// Each submitter's recent stand-in ads, the latest last.
    placeholders: Vec<Vec<Placeholder>>,
    /// Names of the slots jobs were given, each once.
    slot_names: Vec<String>,
    slot_name_index: HashMap<String, u32>,
    /// The startds' policies over time, when some machine type has one
    /// that can act on running jobs.
    execute: Option<Execute>,
    /// Some job has `ConcurrencyLimits`.
    any_limits: bool,
}

/// How many stand-in ads a submitter's recent ones are.
const RECENT_PLACEHOLDERS: usize = 8;

/// A submitter's stand-in ad for the claimed slots a cycle is not given
/// one by one.
struct Placeholder {
    /// The slots' weight, and the concurrency limits they use.
    weight: f64,
    limits: String,
    ad: Arc<ClassAd>,
}

fn config_int(config: &Config, name: &str, default: i64) -> Result<i64, ConfigError> {
    match config.get_int(name) {
        Ok(v) => Ok(v),
        Err(ConfigError::Undefined { .. }) => Ok(default),
        Err(e) => Err(e),
    }
}

impl Simulation {
    /// Prepares a run of `scenario` with its own seed.
    pub fn new(scenario: &Scenario) -> Result<Simulation, SimError> {
        Simulation::with_seed(scenario, scenario.seed)
    }

    /// Prepares a run of `scenario` with seed `seed`.
    pub fn with_seed(scenario: &Scenario, seed: u64) -> Result<Simulation, SimError> {
        let origin = scenario.path.display().to_string();
        let config = Config::parse_str(&scenario.config, &origin)?;
        let negotiator = Negotiator::from_config(&config)?;
        let accountant_config = AccountantConfig::from_config(&config)?;
        let accountant = Accountant::new(accountant_config.clone());
        let pool = Pool::build(scenario, Accountant::new(accountant_config))?;
        let interval = config_int(&config, "NEGOTIATOR_INTERVAL", 60)?.max(1);
        let worklife = config_int(&config, "CLAIM_WORKLIFE", 1200)?;
        let leftovers = match config.get_bool("CLAIM_PARTITIONABLE_LEFTOVERS") {
            Ok(v) => v,
            Err(ConfigError::Undefined { .. }) => true,
            Err(e) => return Err(e.into()),
        };
        let priority_preemption = negotiator.settings.consider_preemption
            && !negotiator
                .preemption_requirements
                .as_ref()
                .is_some_and(|e| matches!(e.as_literal(), Some(classad::Literal::Bool(false))));
        let aggregate = negotiator.settings.use_slot_weights
            && negotiator.slot_constraint.is_none()
            && negotiator.poolsize_constraint.is_none();
        let mut sim = Simulation {
            until: scenario.duration,
            epoch0: scenario.start_time,
            claim_delay: scenario.claim_delay.max(0),
            update_delay: scenario.update_delay.max(0),
            given_back: std::collections::VecDeque::new(),
            interval,
            worklife,
            leftovers,
            record_every: scenario.record_every,
            negotiator,
            accountant,
            pool,
            submitters: Vec::new(),
            submitter_index: HashMap::new(),
            classes: Vec::new(),
            class_index: HashMap::new(),
            jobs: Jobs::default(),
            job_sink: None,
            job_batch: 1,
            sources: Vec::new(),
            trace: Vec::new(),
            trace_offset: 0,
            queue: EventQueue::new(),
            recorder: Recorder::default(),
            priority_preemption,
            aggregate,
            next_cluster: 1,
            events: 0,
            cycles: 0,
            full_cycles: 0,
            last_groups: Vec::new(),
            last_recorded: None,
            quiet_since_futile_cycle: false,
            placeholders: Vec::new(),
            slot_names: Vec::new(),
            slot_name_index: HashMap::new(),
            execute: None,
            any_limits: false,
        };
        sim.execute = Execute::new(scenario, seed)?;
        sim.recorder.execute = sim.execute.is_some();
        sim.accountant.update_priorities(sim.epoch0)?;
        let mut stream = 0u64;
        for u in &scenario.users {
            let width = if u.count > 1 { (u.count as f64).log10().floor() as usize + 1 } else { 0 }.max(3);
            for i in 0..u.count {
                let name = if u.count > 1 { format!("{}{:0width$}", u.name, i + 1) } else { u.name.clone() };
                let user = format!("{name}@{}", u.domain);
                let submitter = sim.submitter(&user, u.group.as_deref());
                if let Some(f) = u.priority_factor {
                    let name = sim.submitters[submitter].name.clone();
                    sim.accountant.set_priority_factor(&name, f)?;
                }
                let source = Source {
                    submitter,
                    rng: Rng::new(seed, stream),
                    arrival: u.arrival.clone(),
                    runtime: u.runtime.clone(),
                    cluster_size: u.cluster_size,
                    key: (
                        u.request_cpus,
                        u.request_memory,
                        u.request_disk,
                        u.requirements.clone(),
                        u.rank.clone(),
                        u.concurrency_limits.clone(),
                        u.vacate_time,
                    ),
                    left: u.max_jobs,
                    fired: false,
                };
                stream += 1;
                let k = sim.sources.len();
                sim.sources.push(source);
                if let Some(first) = sim.next_arrival(k, 0.0) {
                    sim.queue.schedule(first, Event::Arrival { source: k });
                }
            }
        }
        if let Some(t) = &scenario.trace {
            let swf = match t.format {
                TraceFormat::Swf => true,
                TraceFormat::CondorHistory => false,
                TraceFormat::Auto => {
                    t.file.extension().is_some_and(|e| e.eq_ignore_ascii_case("swf"))
                        || t.file.to_string_lossy().to_ascii_lowercase().ends_with(".swf.gz")
                }
            };
            let (mut jobs, _) = read_trace(&t.file, swf, &t.domain, t.keep_requirements)?;
            if let Some(max) = t.max_jobs {
                jobs.truncate(usize::try_from(max).unwrap_or(usize::MAX));
            }
            sim.trace_offset = t.start.or(jobs.first().map(|j| j.submit)).unwrap_or(0);
            if let Some(first) = jobs.iter().position(|j| j.submit >= sim.trace_offset) {
                sim.queue.schedule(jobs[first].submit - sim.trace_offset, Event::Trace { next: first });
            }
            sim.trace = jobs;
        }
        sim.queue.schedule(scenario.first_cycle, Event::Cycle);
        Ok(sim)
    }

    fn submitter(&mut self, user: &str, group: Option<&str>) -> usize {
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

    fn class(
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
    fn next_arrival(&mut self, k: usize, after: f64) -> Option<i64> {
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

    fn add_job(&mut self, now: i64, submitter: usize, class: usize, id: JobId, runtime: i64) {
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

    fn on_arrival(&mut self, now: i64, k: usize) {
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

    fn on_trace(&mut self, now: i64, mut next: usize) {
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

    /// Gives slot `slot` to idle job `j` at `now`; it starts after `delay`.
    fn assign(&mut self, now: i64, j: usize, slot: usize, delay: i64) {
        let job = &mut self.jobs[j];
        self.classes[job.class].idle.remove(&(job.id, j));
        job.state = State::Matched;
        job.slot = Some(slot);
        let name = &self.pool.slots[slot].name;
        let next = u32::try_from(self.slot_names.len()).unwrap_or(u32::MAX);
        let id = match self.slot_name_index.get(name) {
            Some(&id) => id,
            None => {
                self.slot_names.push(name.clone());
                self.slot_name_index.insert(name.clone(), next);
                next
            }
        };
        let job = &mut self.jobs[j];
        job.last_slot = id;
        job.epoch += 1;
        let (submitter, class, epoch) = (job.submitter, job.class, job.epoch);
        let s = &mut self.submitters[submitter];
        s.idle -= 1;
        s.matched += 1;
        s.weight += self.pool.slots[slot].weight;
        self.pool.claim(slot, Claim { job: j, submitter, class, since: now, given_back: None });
        self.queue.schedule(now.saturating_add(delay), Event::Start { job: j, epoch });
    }

    /// Job `j` loses its slot at `now` and is idle again; the work done is
    /// lost. The slot stays claimed (by whoever takes it next).
    fn evict(&mut self, now: i64, j: usize) {
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

    fn on_start(&mut self, now: i64, j: usize, epoch: u32) {
        let Some(job) = self.jobs.get(j) else { return };
        if job.epoch != epoch || job.state != State::Matched {
            return;
        }
        if self.execute.is_some() && !self.execute_start(now, j) {
            return;
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

    fn on_complete(&mut self, now: i64, j: usize, epoch: u32) {
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
    fn release(&mut self, submitter: usize, slot: usize) {
        self.submitters[submitter].weight -= self.pool.slots[slot].weight;
        self.pool.release(slot);
        self.quiet_since_futile_cycle = false;
    }

    /// Releases the claims given back whose news has reached the collector
    /// by `now` (see `update_delay`).
    fn release_given_back(&mut self, now: i64) {
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

    fn idle_jobs(&self) -> u64 {
        self.submitters.iter().map(|s| u64::from(s.idle)).sum()
    }

    /// One negotiation cycle at `now`.
    fn on_cycle(&mut self, now: i64) -> Result<bool, SimError> {
        self.release_given_back(now);
        self.cycles += 1;
        let epoch_now = self.epoch0 + now;
        let mut row = CycleRow::default();
        self.pool.sync();
        if self.execute.as_ref().is_some_and(Execute::has_owners) {
            // Owners come and go: a slot refused now may be willing later.
            self.quiet_since_futile_cycle = false;
        }
        let has_idle = self.idle_jobs() > 0;
        let preemptible = self.priority_preemption || self.pool.any_rank_varies;
        let full = has_idle && (self.pool.has_free() || preemptible) && !self.quiet_since_futile_cycle;
        if full {
            self.full_cycles += 1;
            let mut ads = Vec::new();
            let mut index = Vec::new();
            let mut folded: Vec<f64> = self.submitters.iter().map(|s| s.weight).collect();
            if !self.aggregate || preemptible {
                self.pool.ensure_ads();
                for i in 0..self.pool.slots.len() {
                    let s = &self.pool.slots[i];
                    if !s.alive {
                        continue;
                    }
                    match &s.claim {
                        None => {
                            // With ALLOW_PSLOT_PREEMPTION a partitionable
                            // slot stands for its dynamic slots, even when
                            // it has nothing left of its own.
                            let pslot = matches!(s.kind, SlotKind::Partitionable { .. })
                                && self.negotiator.settings.allow_pslot_preemption;
                            if self.pool.is_free(i) || pslot {
                                ads.push(self.offer(i, now));
                                index.push(Some(i));
                            }
                        }
                        Some(c) => {
                            if !self.aggregate || self.priority_preemption || s.rank_varies {
                                let sub = &self.submitters[c.submitter];
                                let job_ad = &self.classes[c.class].ad;
                                let ran = self.ran(c.job, now);
                                let mut ad = self.pool.claimed_ad(i, &sub.name, &sub.user, job_ad, ran);
                                self.decorate(i, &mut ad, now);
                                ads.push(Arc::new(ad));
                                index.push(Some(i));
                                folded[c.submitter] -= s.weight;
                            }
                        }
                    }
                }
            } else {
                for i in self.pool.free() {
                    ads.push(self.offer(i, now));
                    index.push(Some(i));
                }
            }
            let seen = !self.aggregate || preemptible;
            let limits = self.folded_limits(|i| {
                seen && (!self.aggregate || self.priority_preemption || self.pool.slots[i].rank_varies)
            });
            self.push_placeholders(&folded, &limits, &mut ads, &mut index);
            let queues = self.queues();
            let outcome = self.negotiator.cycle_shared(&mut self.accountant, ads, &queues, epoch_now)?;
            row.matches = outcome.stats.matches as i64;
            row.rejections = outcome.stats.rejections as i64;
            row.pie_spins = i64::from(outcome.stats.pie_spins);
            if !outcome.groups.is_empty() {
                self.last_groups = outcome.groups.clone();
            }
            // Without preemption, a cycle that matched nothing because no
            // slot fits would do the same again until a job or a slot
            // comes (with preemption, priorities and retirement times move).
            let futile = !preemptible
                && outcome.matches.is_empty()
                && outcome.rejections.iter().all(|r| r.reason == RejectReason::NoMatch);
            for m in &outcome.matches {
                let Some(Some(slot)) = index.get(m.slot_index).copied() else { continue };
                if m.claim != ClaimKind::Unclaimed {
                    row.preemptions += 1;
                }
                if !m.preempted_dynamic_slots.is_empty() {
                    // ALLOW_PSLOT_PREEMPTION: the partitionable slot is
                    // taken with the dynamic slots it preempts.
                    self.preempt_children(now, slot, &m.preempted_dynamic_slots);
                }
                self.take_match(now, slot, m.autocluster as usize);
            }
            self.quiet_since_futile_cycle = futile;
        } else {
            // The accountant is brought up to date as the negotiator's would be.
            let folded: Vec<f64> = self.submitters.iter().map(|s| s.weight).collect();
            let mut ads = Vec::new();
            let mut index = Vec::new();
            if self.aggregate {
                self.push_placeholders(&folded, &[], &mut ads, &mut index);
            } else {
                self.pool.ensure_ads();
                for i in 0..self.pool.slots.len() {
                    let s = &self.pool.slots[i];
                    if s.alive {
                        ads.push(match &s.claim {
                            Some(c) => {
                                let sub = &self.submitters[c.submitter];
                                let ran = self.ran(c.job, now);
                                Arc::new(self.pool.claimed_ad(i, &sub.name, &sub.user, &self.classes[c.class].ad, ran))
                            }
                            None => s.ad.clone(),
                        });
                    }
                }
            }
            self.accountant.update_priorities(epoch_now)?;
            self.accountant.check_matches(epoch_now, &ads)?;
        }
        self.pool.sync();
        row.idle = self.submitters.iter().map(|s| i64::from(s.idle + s.matched)).sum();
        row.running = self.submitters.iter().map(|s| i64::from(s.running)).sum();
        row.busy = self.pool.busy_weight;
        row.total = self.pool.total_weight;
        if let Some(e) = &mut self.execute {
            row.execute = e.cycle_figures();
        }
        self.recorder.cycle(now, &row);
        let record = match self.last_recorded {
            None => true,
            Some(last) => self.record_every <= 0 || now - last >= self.record_every,
        };
        if record {
            self.last_recorded = Some(now);
            self.record_users(now);
        }
        Ok(full)
    }

    /// Seconds job `j` has run at `now` (0 when not running).
    fn ran(&self, j: usize, now: i64) -> i64 {
        match self.jobs.get(j) {
            // (not counting the time suspended, as the startd's retirement)
            Some(job) if job.state == State::Running => {
                now - job.started - self.execute.as_ref().map_or(0, |e| e.paused(job.slot, now))
            }
            _ => 0,
        }
    }

    /// One stand-in ad per submitter holding slots the cycle is not given
    /// (`weights`), with the concurrency limits they use (`limits`, by
    /// submitter; may be empty).
    fn push_placeholders(
        &mut self,
        weights: &[f64],
        limits: &[String],
        ads: &mut Vec<Arc<ClassAd>>,
        index: &mut Vec<Option<usize>>,
    ) {
        self.placeholders.resize_with(self.submitters.len(), Vec::new);
        for (k, (s, &w)) in self.submitters.iter().zip(weights).enumerate() {
            if w > 1e-9 {
                let limits = limits.get(k).map_or("", String::as_str);
                // A recent ad for the same weight and limits when there is
                // one (weights go up and down by a slot or two); the
                // negotiator remembers the last cycle's prepared.
                let recent = &mut self.placeholders[k];
                let ad = match recent.iter().position(|p| p.weight == w && p.limits == limits) {
                    Some(at) => {
                        let p = recent.remove(at);
                        let ad = p.ad.clone();
                        recent.push(p);
                        ad
                    }
                    None => {
                        let mut ad = placeholder(&s.name, &s.user, w);
                        if !limits.is_empty() {
                            ad.insert("ConcurrencyLimits", limits);
                        }
                        let ad = Arc::new(ad);
                        if recent.len() >= RECENT_PLACEHOLDERS {
                            recent.remove(0);
                        }
                        recent.push(Placeholder { weight: w, limits: limits.to_string(), ad: ad.clone() });
                        ad
                    }
                };
                ads.push(ad);
                index.push(None);
            }
        }
    }

    /// The schedd's side of a match: the next idle job of the autocluster
    /// takes the slot (preempting whoever held it), and a partitionable
    /// slot is split; with `CLAIM_PARTITIONABLE_LEFTOVERS`, the schedd
    /// keeps carving it for the autocluster's next jobs while they fit.
    fn take_match(&mut self, now: i64, slot: usize, class: usize) {
        let Some(&(_, j)) = self.classes.get(class).and_then(|c| c.idle.first()) else { return };
        if let Some(c) = self.pool.slots[slot].claim.clone() {
            if c.given_back.is_some() {
                // A claim given back that the collector still shows.
                self.submitters[c.submitter].weight -= self.pool.slots[slot].weight;
            } else if c.job != usize::MAX {
                self.evict(now, c.job);
            }
            self.pool.slots[slot].claim = None;
            self.pool.busy_weight -= self.pool.slots[slot].weight;
            self.assign(now, j, slot, self.claim_delay);
            return;
        }
        match self.pool.slots[slot].kind {
            SlotKind::Partitionable { .. } => {
                let ad = self.classes[class].ad.clone();
                let Some(d) = self.pool.carve(slot, &ad) else { return };
                self.assign(now, j, d, self.claim_delay);
                while let (true, Some(&(_, next))) = (self.leftovers, self.classes[class].idle.first()) {
                    let Some(d) = self.pool.carve(slot, &ad) else { break };
                    self.assign(now, next, d, self.claim_delay);
                }
            }
            _ => self.assign(now, j, slot, self.claim_delay),
        }
    }

    /// The dynamic slots `names` of partitionable slot `pslot`, preempted
    /// by one match: their jobs go back to idle and their resources back
    /// to the partitionable slot, for the job that preempts them.
    fn preempt_children(&mut self, now: i64, pslot: usize, names: &[String]) {
        let children: Vec<usize> = (0..self.pool.slots.len())
            .filter(|&i| {
                let s = &self.pool.slots[i];
                s.alive
                    && matches!(s.kind, SlotKind::Dynamic { parent, .. } if parent == pslot)
                    && names.contains(&s.name)
            })
            .collect();
        for d in children {
            let Some(c) = self.pool.slots[d].claim.clone() else { continue };
            if c.given_back.is_some() {
                // Given back, still shown claimed: still charged.
                self.release(c.submitter, d);
                continue;
            }
            if c.job != usize::MAX {
                // (Its submitter is no longer charged the slot.)
                self.evict(now, c.job);
            }
            self.pool.release(d);
        }
    }

    /// Each submitter's resource requests: one per autocluster with idle
    /// jobs, in the order of their first idle job.
    fn queues(&self) -> Vec<SubmitterQueue> {
        let mut by_submitter: Vec<Vec<(JobId, usize)>> = vec![Vec::new(); self.submitters.len()];
        for (c, class) in self.classes.iter().enumerate() {
            if let Some(&(first, _)) = class.idle.first() {
                by_submitter[class.submitter].push((first, c));
            }
        }
        let mut queues: Vec<SubmitterQueue> = Vec::new();
        for (k, mut requests) in by_submitter.into_iter().enumerate() {
            let s = &self.submitters[k];
            if requests.is_empty() {
                continue;
            }
            requests.sort();
            queues.push(SubmitterQueue {
                name: s.name.clone(),
                schedd: "sim".to_string(),
                requests: requests
                    .into_iter()
                    .map(|(first, c)| ResourceRequest {
                        ad: self.classes[c].ad.clone(),
                        count: u32::try_from(self.classes[c].idle.len()).unwrap_or(u32::MAX),
                        job: first,
                        autocluster: u32::try_from(c).unwrap_or(u32::MAX),
                    })
                    .collect(),
                running_jobs: s.running + s.matched,
                tie_break: 0,
            });
        }
        queues.sort_by(|a, b| a.name.cmp(&b.name));
        queues
    }

    fn record_users(&mut self, now: i64) {
        let busy = self.pool.busy_weight;
        let by_submitter = self.execute.as_ref().map(|e| e.by_submitter(self.submitters.len()));
        for (k, s) in self.submitters.iter().enumerate() {
            if let Some(figures) = &by_submitter {
                self.recorder.user_execute(figures[k]);
            }
            let c = self.accountant.customer(&s.name);
            self.recorder.user(
                now,
                &s.user,
                &s.group,
                s.weight,
                c.and_then(|c| c.weighted_accumulated_usage.or(c.accumulated_usage)).unwrap_or(0.0),
                self.accountant.real_priority(&s.name),
                self.accountant.effective_priority(&s.name),
                if busy > 0.0 { s.weight / busy } else { 0.0 },
                i64::from(s.idle + s.matched),
                i64::from(s.running),
            );
        }
        for g in &self.last_groups {
            let usage: f64 = self
                .submitters
                .iter()
                .filter(|s| s.accounting_group.eq_ignore_ascii_case(&g.name))
                .map(|s| s.weight)
                .sum();
            self.recorder.group(now, &g.name, g.quota, g.demand, g.allocated, usage);
        }
    }

    /// Runs until the scenario's duration (or `until` seconds, if given),
    /// calling `progress` after every cycle.
    pub fn run(mut self, until: Option<i64>, progress: &mut dyn FnMut(&Progress)) -> Result<Results, SimError> {
        if let Some(u) = until {
            self.until = u.max(0);
        }
        while self.step(progress)? {}
        self.finish()
    }

    /// Ends the run at `until` seconds instead of the scenario's duration.
    pub fn set_until(&mut self, until: i64) {
        self.until = until.max(0);
    }

    /// Handles the next event; false when the run is over.
    pub fn step(&mut self, progress: &mut dyn FnMut(&Progress)) -> Result<bool, SimError> {
        match self.queue.peek_time() {
            Some(t) if t <= self.until => {}
            _ => return Ok(false),
        }
        let Some((now, event)) = self.queue.pop() else { return Ok(false) };
        self.events += 1;
        match event {
            Event::Cycle => {
                let full = self.on_cycle(now)?;
                self.retire_jobs()?;
                self.queue.schedule(now.saturating_add(self.interval), Event::Cycle);
                progress(&Progress {
                    time: now,
                    until: self.until,
                    events: self.events,
                    cycles: self.cycles,
                    full_cycles: self.full_cycles,
                    after_full_cycle: full,
                });
            }
            Event::Arrival { source } => self.on_arrival(now, source),
            Event::Trace { next } => self.on_trace(now, next),
            Event::Start { job, epoch } => self.on_start(now, job, epoch),
            Event::Complete { job, epoch } => self.on_complete(now, job, epoch),
            Event::Execute { slot, serial } => self.on_execute(now, slot, serial),
        }
        Ok(true)
    }

    /// The time of the last event, seconds since the start.
    pub fn now(&self) -> i64 {
        self.queue.now()
    }

    /// The results so far (the run can go on).
    pub fn results(&self) -> Results {
        let mut results =
            self.job_rows_and(|rows| self.recorder.snapshot(rows, self.cycles, self.full_cycles, self.events));
        if let Some(e) = &self.execute {
            results.tables.push(e.table());
        }
        results
    }

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

    fn finish(self) -> Result<Results, SimError> {
        let Simulation {
            recorder,
            jobs,
            submitters,
            slot_names,
            until,
            cycles,
            full_cycles,
            events,
            execute,
            job_sink,
            ..
        } = self;
        let mut rows = jobs.iter().map(|(k, j)| {
            let mut row = job_row(j, &submitters, &slot_names, until);
            row.execute = execute.as_ref().map(|e| e.job_at(k, j.slot, until));
            row
        });
        let mut results = recorder.finish(&mut rows, cycles, full_cycles, events);
        if let Some(mut sink) = job_sink {
            // the last batch: the rows the sink has not had
            if let Some(k) = results.tables.iter().position(|t| t.name == "jobs") {
                let rest = results.tables.remove(k);
                sink(rest).map_err(SimError::Jobs)?;
            }
        }
        if let Some(e) = &execute {
            results.tables.push(e.table());
        }
        Ok(results)
    }

    /// Sends the rows of the `jobs` table to `sink` as the run goes,
    /// instead of keeping them for the results, so that a long run's
    /// memory does not grow with the jobs it has finished. A job's row
    /// goes once it has finished and every job submitted before it has
    /// too (rows stay in job order); the rest go when the run ends.
    /// [`results`](Self::results) then has only the rows not sent yet,
    /// and the results of [`run`](Self::run) no `jobs` table.
    /// Rows go `batch` at a time (at least one).
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use negotiator_sim::simulate::run::Simulation;
    /// use negotiator_sim::simulate::scenario::Scenario;
    /// use negotiator_sim::table::Table;
    ///
    /// let text = "duration = \"6h\"\nconfig = \"NEGOTIATOR_INTERVAL = 60\"\n\
    ///             [[pool.machines]]\ncount = 2\ncpus = 4\nmemory = 8192\n\
    ///             [[users]]\nname = \"u\"\narrival = { process = \"poisson\", mean_interval = \"5m\" }\n\
    ///             runtime = { distribution = \"fixed\", value = \"20m\" }\n";
    /// let scenario = Scenario::from_toml_str(text, std::path::Path::new("s.toml"))?;
    /// let rows = Arc::new(Mutex::new(0));
    /// let counted = Arc::clone(&rows);
    /// let mut sim = Simulation::new(&scenario)?;
    /// sim.stream_jobs(
    ///     Box::new(move |batch: Table| {
    ///         *counted.lock().map_err(|e| e.to_string())? += batch.rows();
    ///         Ok(())
    ///     }),
    ///     10,
    /// );
    /// let results = sim.run(None, &mut |_| {})?;
    /// assert!(results.table("jobs").is_none());
    /// assert_eq!(*rows.lock().expect("not poisoned") as u64, results.summary.jobs);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stream_jobs(&mut self, sink: JobSink, batch: usize) {
        self.job_sink = Some(sink);
        self.job_batch = batch.max(1);
    }

    /// Retires the finished jobs at the front: their rows go to the
    /// recorder, and from it to the sink in batches.
    fn retire_jobs(&mut self) -> Result<(), SimError> {
        while let Some((k, job)) = self.jobs.retire_first_done() {
            let mut row = job_row(&job, &self.submitters, &self.slot_names, self.until);
            row.execute = self.execute.as_ref().map(|e| e.job_at(k, job.slot, self.until));
            self.recorder.retire(row);
        }
        if let Some(sink) = &mut self.job_sink {
            if self.recorder.retired() >= self.job_batch {
                sink(self.recorder.take_retired()).map_err(SimError::Jobs)?;
            }
        }
        Ok(())
    }

    fn job_rows_and<T>(&self, f: impl FnOnce(&mut dyn Iterator<Item = JobRow>) -> T) -> T {
        let mut rows = self.jobs.iter().map(|(k, j)| {
            let mut row = job_row(j, &self.submitters, &self.slot_names, self.until);
            row.execute = self.execute.as_ref().map(|e| e.job_at(k, j.slot, self.queue.now()));
            row
        });
        f(&mut rows)
    }
}

/// One job's row of the `jobs` table at the end `until`.
fn job_row(j: &Job, submitters: &[Submitter], slot_names: &[String], until: i64) -> JobRow {
    let s = &submitters[j.submitter];
    let (wait, run) = match j.state {
        State::Idle | State::Matched => (j.wait + (until - j.idle_since).max(0), 0),
        State::Running => (j.wait, 0),
        State::Done => (j.wait, j.runtime),
    };
    JobRow {
        job: j.id.to_string(),
        user: s.user.clone(),
        group: s.group.clone(),
        submit: j.submit,
        start: j.first_start,
        end: j.end,
        wait,
        run,
        badput: j.badput,
        preemptions: j.preemptions,
        slot: slot_names.get(j.last_slot as usize).cloned().unwrap_or_default(),
        execute: None,
    }
}

/// The figures of one cycle.
#[derive(Debug, Default, Clone)]
pub(super) struct CycleRow {
    pub matches: i64,
    pub rejections: i64,
    pub preemptions: i64,
    pub idle: i64,
    pub running: i64,
    pub busy: f64,
    pub total: f64,
    pub pie_spins: i64,
    /// Jobs suspended, and vacates and kills since the last cycle (with
    /// an execute side).
    pub execute: (i64, i64, i64),
}

// ----- the execute side: hooks into [`Execute`] -----------------------------

impl Simulation {
    /// Matched job `j` starts on its slot at `now` under the startd's
    /// policy; false when the startd refused it (it is idle again).
    fn execute_start(&mut self, now: i64, j: usize) -> bool {
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
    fn on_execute(&mut self, now: i64, slot: usize, serial: u32) {
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

    /// Adds the owner's activity to the ad of slot `i` as a cycle sees it.
    /// Free slot `i`'s ad for a cycle at `now`: the pool's own (the same
    /// `Arc` from cycle to cycle while the slot does not change, so that
    /// the negotiator remembers it prepared), or chained to it with what
    /// the owner model adds.
    fn offer(&self, i: usize, now: i64) -> Arc<ClassAd> {
        let ad = &self.pool.slots[i].ad;
        let mut child = ClassAd::new();
        self.decorate(i, &mut child, now);
        if child.is_empty() {
            return ad.clone();
        }
        child.chain_to(ad.clone());
        Arc::new(child)
    }

    fn decorate(&self, i: usize, ad: &mut ClassAd, now: i64) {
        if let Some(e) = &self.execute {
            e.decorate(i, &self.pool.slots[i].name, ad, now);
        }
    }

    /// The concurrency limits in use by each submitter's claimed slots
    /// that the cycle is not given one by one (`individually`), as a
    /// `ConcurrencyLimits` list for its stand-in ad.
    fn folded_limits(&self, individually: impl Fn(usize) -> bool) -> Vec<String> {
        let mut used: Vec<BTreeMap<String, f64>> = vec![BTreeMap::new(); self.submitters.len()];
        if !self.any_limits {
            return vec![String::new(); self.submitters.len()];
        }
        for (i, s) in self.pool.slots.iter().enumerate() {
            let Some(c) = &s.claim else { continue };
            if !s.alive || c.job == usize::MAX || individually(i) {
                continue;
            }
            if let Some(classad::Literal::Str(list)) =
                self.classes[c.class].ad.lookup("ConcurrencyLimits").and_then(classad::Expr::as_literal)
            {
                for item in matchmaker::concurrency::items(list.as_str()) {
                    *used[c.submitter].entry(item.name).or_insert(0.0) += item.units;
                }
            }
        }
        used.into_iter()
            .map(|m| m.into_iter().map(|(name, units)| format!("{name}:{units}")).collect::<Vec<_>>().join(", "))
            .collect()
    }
}
