//! The run: the event loop, the schedd's side (queues, claims, claim
//! reuse, preemption) and the negotiation cycle each interval.
//!
//! Each cycle gives the negotiator the slots it can use (unclaimed slots
//! and partitionable slots with something left; claimed slots too when
//! they could be preempted) and, for each submitter, one ad standing for
//! the slots it holds otherwise (see [`placeholder`](super::pool::placeholder)): the pool's weight,
//! each submitter's usage and the accountant's charges are those of the
//! whole pool, while the cycle need not look at thousands of busy slots
//! it could not take. A cycle that cannot match anything (no idle job, or
//! no free slot and no slot that could be preempted) only brings the
//! accountant up to date, as HTCondor's would.
//!
//! This file holds the run's state and its event loop; its parts are
//! methods of [`Simulation`] in the modules below, which share the state
//! and call one another only downwards: `cycle` (the negotiation cycle,
//! which takes its matches through `claims`), `claims` (a job's claim
//! from match to end), `arrivals` (jobs submitted) and `check` (the
//! consistency check, for tests).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use classad::ClassAd;
use matchmaker::accountant::{Accountant, AccountantConfig};
use matchmaker::autocluster::JobId;
use matchmaker::config::{Config, ConfigError};
use matchmaker::negotiator::{GroupReport, Negotiator};

use super::events::EventQueue;
use super::execute::Execute;
use super::pool::Pool;
use super::random::{Distribution, Rng};
use super::results::{JobRow, JobSink, Recorder, Results};
use super::scenario::{Arrival, Scenario, TraceFormat};
use super::trace::{read_trace, TraceJob};
use super::SimError;

mod arrivals;
mod check;
mod claims;
mod cycle;

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
