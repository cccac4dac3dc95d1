//! What a run leaves: the `users`, `groups`, `cycles` and `jobs` tables
//! (their columns are fixed: writers and charts rely on them) and a few
//! totals. When the startds' policies act on running jobs, `users`,
//! `cycles` and `jobs` have a few more columns at their end (suspended jobs, vacates
//! and kills) and an `execute` table follows, one row per thing a startd
//! did to a job.

use super::execute::JobFigures;
use crate::table::{Column, Table};

/// One job's figures, for the `jobs` table.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRow {
    /// `cluster.proc`.
    pub job: String,
    /// `user@domain`.
    pub user: String,
    /// Accounting group, `""` without one.
    pub group: String,
    /// Submission, seconds since the start.
    pub submit: i64,
    /// First start (−1: never started).
    pub start: i64,
    /// Completion (−1: not finished).
    pub end: i64,
    /// Seconds idle in total (up to the end of the run for a job still
    /// waiting).
    pub wait: i64,
    /// Seconds of the run that completed (0 when none did).
    pub run: i64,
    /// Seconds of work lost to preemptions.
    pub badput: i64,
    /// Times preempted.
    pub preemptions: i64,
    /// The last slot it was given (`""`: none).
    pub slot: String,
    /// What the startds' policies did to it, when some machine type has
    /// a policy that acts on running jobs (see
    /// [`execute`](super::execute)).
    pub execute: Option<JobFigures>,
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

/// Totals of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Negotiation cycles.
    pub cycles: u64,
    /// Cycles that ran the match phase (the others only updated the
    /// accountant: nothing could be matched).
    pub full_cycles: u64,
    /// Events handled.
    pub events: u64,
    /// Jobs submitted.
    pub jobs: u64,
    /// Jobs finished.
    pub finished: u64,
    /// Jobs that started, and the seconds they waited, all together.
    pub started: u64,
    /// See `started`.
    pub started_wait: i64,
    /// Seconds of work lost to preemption, all jobs together.
    pub badput: i64,
}

/// Where the rows of the `jobs` table go while a simulation runs (see
/// [`Simulation::stream_jobs`](super::run::Simulation::stream_jobs)): it
/// is given batches of rows, each a table named `jobs` with the columns
/// the finished table would have, in job order; the last batch (perhaps
/// without rows) comes when the run ends. Each batch is the sink's to
/// keep (to hand to a writer thread, say).
pub type JobSink = Box<dyn FnMut(Table) -> Result<(), String> + Send>;

/// The tables of a run, in the order `users`, `groups`, `cycles`, `jobs`.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    /// The tables.
    pub tables: Vec<Table>,
    /// Totals.
    pub summary: Summary,
}

impl Results {
    /// The table called `name`.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
}

/// Rows as they come, kept as columns.
#[derive(Default, Clone)]
pub(super) struct Recorder {
    u_time: Vec<i64>,
    u_user: Vec<String>,
    u_group: Vec<String>,
    u_usage: Vec<f64>,
    u_accumulated: Vec<f64>,
    u_rup: Vec<f64>,
    u_eup: Vec<f64>,
    u_share: Vec<f64>,
    u_idle: Vec<i64>,
    u_running: Vec<i64>,
    g_time: Vec<i64>,
    g_group: Vec<String>,
    g_quota: Vec<f64>,
    g_demand: Vec<f64>,
    g_allocated: Vec<f64>,
    g_usage: Vec<f64>,
    c_time: Vec<i64>,
    c_matches: Vec<i64>,
    c_rejections: Vec<i64>,
    c_preemptions: Vec<i64>,
    c_idle: Vec<i64>,
    c_running: Vec<i64>,
    c_busy: Vec<f64>,
    c_total: Vec<f64>,
    c_spins: Vec<i64>,
    /// The execute side's columns are kept (see [`execute`](super::execute)).
    pub(super) execute: bool,
    u_suspended: Vec<i64>,
    u_vacates: Vec<i64>,
    u_kills: Vec<i64>,
    c_suspended: Vec<i64>,
    c_vacates: Vec<i64>,
    c_kills: Vec<i64>,
    /// Rows of the jobs table taken early (the jobs finished before every
    /// job after them), in job order, not yet given to a sink.
    retired: JobColumns,
    /// Jobs counted so far.
    counts: Summary,
}

impl Recorder {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn user(
        &mut self,
        time: i64,
        user: &str,
        group: &str,
        usage: f64,
        accumulated: f64,
        rup: f64,
        eup: f64,
        share: f64,
        idle: i64,
        running: i64,
    ) {
        self.u_time.push(time);
        self.u_user.push(user.to_string());
        self.u_group.push(group.to_string());
        self.u_usage.push(usage);
        self.u_accumulated.push(accumulated);
        self.u_rup.push(rup);
        self.u_eup.push(eup);
        self.u_share.push(share);
        self.u_idle.push(idle);
        self.u_running.push(running);
    }

    /// The execute side's figures of the next user row: jobs suspended
    /// now, vacates and kills so far.
    pub(super) fn user_execute(&mut self, (suspended, vacates, kills): (i64, i64, i64)) {
        self.u_suspended.push(suspended);
        self.u_vacates.push(vacates);
        self.u_kills.push(kills);
    }

    pub(super) fn group(&mut self, time: i64, group: &str, quota: f64, demand: f64, allocated: f64, usage: f64) {
        self.g_time.push(time);
        self.g_group.push(group.to_string());
        self.g_quota.push(quota);
        self.g_demand.push(demand);
        self.g_allocated.push(allocated);
        self.g_usage.push(usage);
    }

    pub(super) fn cycle(&mut self, time: i64, row: &CycleRow) {
        self.c_time.push(time);
        self.c_matches.push(row.matches);
        self.c_rejections.push(row.rejections);
        self.c_preemptions.push(row.preemptions);
        self.c_idle.push(row.idle);
        self.c_running.push(row.running);
        self.c_busy.push(row.busy);
        self.c_total.push(row.total);
        self.c_spins.push(row.pie_spins);
        if self.execute {
            let (suspended, vacates, kills) = row.execute;
            self.c_suspended.push(suspended);
            self.c_vacates.push(vacates);
            self.c_kills.push(kills);
        }
    }

    /// The tables so far (a copy: the run goes on).
    pub(super) fn snapshot(
        &self,
        jobs: &mut dyn Iterator<Item = JobRow>,
        cycles: u64,
        full_cycles: u64,
        events: u64,
    ) -> Results {
        self.clone().finish(jobs, cycles, full_cycles, events)
    }

    /// The tables, the columns moved into them.
    pub(super) fn finish(
        self,
        jobs: &mut dyn Iterator<Item = JobRow>,
        cycles: u64,
        full_cycles: u64,
        events: u64,
    ) -> Results {
        let c = self;
        let mut users = Table::new("users");
        users.push("time", Column::Int(c.u_time));
        users.push("user", Column::Str(c.u_user));
        users.push("group", Column::Str(c.u_group));
        users.push("usage", Column::Float(c.u_usage));
        users.push("accumulated_usage", Column::Float(c.u_accumulated));
        users.push("rup", Column::Float(c.u_rup));
        users.push("eup", Column::Float(c.u_eup));
        users.push("share", Column::Float(c.u_share));
        users.push("idle", Column::Int(c.u_idle));
        users.push("running", Column::Int(c.u_running));
        if c.execute {
            users.push("suspended", Column::Int(c.u_suspended));
            users.push("vacates", Column::Int(c.u_vacates));
            users.push("kills", Column::Int(c.u_kills));
        }
        let mut groups = Table::new("groups");
        groups.push("time", Column::Int(c.g_time));
        groups.push("group", Column::Str(c.g_group));
        groups.push("quota", Column::Float(c.g_quota));
        groups.push("demand", Column::Float(c.g_demand));
        groups.push("allocated", Column::Float(c.g_allocated));
        groups.push("usage", Column::Float(c.g_usage));
        let mut table = Table::new("cycles");
        table.push("time", Column::Int(c.c_time));
        table.push("matches", Column::Int(c.c_matches));
        table.push("rejections", Column::Int(c.c_rejections));
        table.push("preemptions", Column::Int(c.c_preemptions));
        table.push("idle_jobs", Column::Int(c.c_idle));
        table.push("running_jobs", Column::Int(c.c_running));
        table.push("busy_slots", Column::Float(c.c_busy));
        table.push("total_slots", Column::Float(c.c_total));
        table.push("pie_spins", Column::Int(c.c_spins));
        if c.execute {
            table.push("suspended_jobs", Column::Int(c.c_suspended));
            table.push("vacates", Column::Int(c.c_vacates));
            table.push("kills", Column::Int(c.c_kills));
        }
        let mut job = c.retired;
        job.execute = c.execute;
        let mut counts = c.counts;
        for row in jobs {
            counts.count(&row);
            job.push(row);
        }
        let summary = Summary { cycles, full_cycles, events, ..counts };
        Results { tables: vec![users, groups, table, job.table()], summary }
    }

    /// Takes the row of a job that is over for good (it finished, and so
    /// did every job before it), ahead of [`finish`](Self::finish).
    pub(super) fn retire(&mut self, row: JobRow) {
        self.counts.count(&row);
        self.retired.execute = self.execute;
        self.retired.push(row);
    }

    /// How many rows [`retire`](Self::retire) holds.
    pub(super) fn retired(&self) -> usize {
        self.retired.job.len()
    }

    /// The rows [`retire`](Self::retire) holds, as a `jobs` table; they
    /// are no longer held.
    pub(super) fn take_retired(&mut self) -> Table {
        // The next rows get as much room as these had (batches are alike):
        // the columns do not grow, copying themselves, batch after batch.
        let next = JobColumns::with_capacity(self.retired.job.len(), self.execute);
        std::mem::replace(&mut self.retired, next).table()
    }
}

impl Summary {
    /// Counts a row of the jobs table.
    fn count(&mut self, row: &JobRow) {
        self.jobs += 1;
        if row.end >= 0 {
            self.finished += 1;
        }
        if row.start >= 0 {
            self.started += 1;
            self.started_wait += row.wait;
        }
        self.badput += row.badput;
    }
}

#[derive(Default, Clone)]
struct JobColumns {
    job: Vec<String>,
    user: Vec<String>,
    group: Vec<String>,
    submit: Vec<i64>,
    start: Vec<i64>,
    end: Vec<i64>,
    wait: Vec<i64>,
    run: Vec<i64>,
    badput: Vec<i64>,
    preemptions: Vec<i64>,
    slot: Vec<String>,
    execute: bool,
    suspended: Vec<i64>,
    suspensions: Vec<i64>,
    vacates: Vec<i64>,
    kills: Vec<i64>,
}

impl JobColumns {
    /// Empty columns with room for `rows` rows (and the startd's
    /// figures, when `execute`).
    fn with_capacity(rows: usize, execute: bool) -> JobColumns {
        let figures = if execute { rows } else { 0 };
        JobColumns {
            job: Vec::with_capacity(rows),
            user: Vec::with_capacity(rows),
            group: Vec::with_capacity(rows),
            submit: Vec::with_capacity(rows),
            start: Vec::with_capacity(rows),
            end: Vec::with_capacity(rows),
            wait: Vec::with_capacity(rows),
            run: Vec::with_capacity(rows),
            badput: Vec::with_capacity(rows),
            preemptions: Vec::with_capacity(rows),
            slot: Vec::with_capacity(rows),
            execute,
            suspended: Vec::with_capacity(figures),
            suspensions: Vec::with_capacity(figures),
            vacates: Vec::with_capacity(figures),
            kills: Vec::with_capacity(figures),
        }
    }

    fn push(&mut self, r: JobRow) {
        self.job.push(r.job);
        self.user.push(r.user);
        self.group.push(r.group);
        self.submit.push(r.submit);
        self.start.push(r.start);
        self.end.push(r.end);
        self.wait.push(r.wait);
        self.run.push(r.run);
        self.badput.push(r.badput);
        self.preemptions.push(r.preemptions);
        self.slot.push(r.slot);
        if self.execute {
            let f = r.execute.unwrap_or_default();
            self.suspended.push(f.suspended);
            self.suspensions.push(f.suspensions);
            self.vacates.push(f.vacates);
            self.kills.push(f.kills);
        }
    }

    fn table(self) -> Table {
        let mut t = Table::new("jobs");
        t.push("job", Column::Str(self.job));
        t.push("user", Column::Str(self.user));
        t.push("group", Column::Str(self.group));
        t.push("submit", Column::Int(self.submit));
        t.push("start", Column::Int(self.start));
        t.push("end", Column::Int(self.end));
        t.push("wait", Column::Int(self.wait));
        t.push("run", Column::Int(self.run));
        t.push("badput", Column::Int(self.badput));
        t.push("preemptions", Column::Int(self.preemptions));
        t.push("slot", Column::Str(self.slot));
        if self.execute {
            t.push("suspended", Column::Int(self.suspended));
            t.push("suspensions", Column::Int(self.suspensions));
            t.push("vacates", Column::Int(self.vacates));
            t.push("kills", Column::Int(self.kills));
        }
        t
    }
}
