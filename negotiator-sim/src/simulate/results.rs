//! What a run leaves: the `users`, `groups`, `cycles` and `jobs` tables
//! (their columns are fixed: writers and charts rely on them) and a few
//! totals. When the startds' policies act on running jobs, `users`,
//! `cycles` and `jobs` have a few more columns at their end (suspended jobs, vacates
//! and kills) and an `execute` table follows, one row per thing a startd
//! did to a job.
//!
//! Each table's fixed columns are declared once, in the `columns!`
//! invocation of its row type below: the row's fields, the column each
//! fills, its name and type. The schema
//! ([`USERS`], [`GROUPS`], [`CYCLES`], [`JOBS`], read by the CSV reader and
//! the report's checks through [`crate::output::schema`]) and the code
//! that turns rows into columns are generated from it: a new column is
//! one line there (and the code that computes its value).

use super::execute::JobFigures;
use crate::table::{Column, ColumnType, Table};

/// The Rust type of a column of kind `Int`, `Float` or `Str`.
macro_rules! column_type {
    (Int) => {
        i64
    };
    (Float) => {
        f64
    };
    (Str) => {
        String
    };
}

/// Declares a table's row type and its fixed columns, once: each field
/// `name: Kind = "column"` is a field of the row (of Kind's Rust type,
/// see `column_type!`) and the column `"column"` of type
/// [`ColumnType`]`::Kind`. Generates the row struct (plus the `extra`
/// fields, which are not columns), the schema constant (the columns'
/// names and types, in order) and a private column store (`$store`) with
/// `push` (a row) and `into_table` (the columns, in order, appended to a
/// table).
macro_rules! columns {
    (
        $(#[$meta:meta])*
        $vis:vis struct $row:ident;
        store $store:ident;
        $(#[$schema_meta:meta])*
        schema $schema:ident = $table:literal {
            $( $(#[$field_meta:meta])* $field:ident: $kind:ident = $column:literal, )*
        }
        $( extra { $( $(#[$extra_meta:meta])* $extra:ident: $extra_ty:ty, )* } )?
    ) => {
        $(#[$meta])*
        $vis struct $row {
            $( $(#[$field_meta])* pub $field: column_type!($kind), )*
            $( $( $(#[$extra_meta])* pub $extra: $extra_ty, )* )?
        }

        $(#[$schema_meta])*
        pub const $schema: &[(&str, ColumnType)] = &[$( ($column, ColumnType::$kind), )*];

        #[doc = concat!("The fixed columns of `", $table, "`, filled row by row.")]
        #[derive(Default, Clone)]
        struct $store {
            $( $field: Vec<column_type!($kind)>, )*
        }

        impl $store {
            /// Empty columns with room for `rows` rows.
            #[allow(dead_code)]
            fn with_capacity(rows: usize) -> $store {
                $store { $( $field: Vec::with_capacity(rows), )* }
            }

            /// How many rows the columns hold.
            #[allow(dead_code)]
            fn len(&self) -> usize {
                [$( self.$field.len(), )*][0]
            }

            /// Adds `row`'s columns (its `extra` fields are dropped).
            fn push(&mut self, row: $row) {
                let $row { $( $field, )* .. } = row;
                $( self.$field.push($field); )*
            }

            /// Appends the columns to `table`, in order.
            fn into_table(self, table: &mut Table) {
                $( table.push($column, Column::$kind(self.$field)); )*
            }
        }
    };
}

columns! {
    /// One job's figures, for the `jobs` table.
    #[derive(Debug, Clone, PartialEq)]
    pub struct JobRow;
    store JobFixedColumns;
    /// The fixed columns of `jobs`: one row per job.
    schema JOBS = "jobs" {
        /// `cluster.proc`.
        job: Str = "job",
        /// `user@domain`.
        user: Str = "user",
        /// Accounting group, `""` without one.
        group: Str = "group",
        /// Submission, seconds since the start.
        submit: Int = "submit",
        /// First start (−1: never started).
        start: Int = "start",
        /// Completion (−1: not finished).
        end: Int = "end",
        /// Seconds idle in total (up to the end of the run for a job still
        /// waiting).
        wait: Int = "wait",
        /// Seconds of the run that completed (0 when none did).
        run: Int = "run",
        /// Seconds of work lost to preemptions.
        badput: Int = "badput",
        /// Times preempted.
        preemptions: Int = "preemptions",
        /// The last slot it ran on (`""`: none, as for a job that never
        /// started).
        slot: Str = "slot",
    }
    extra {
        /// What the startds' policies did to it, when some machine type has
        /// a policy that acts on running jobs (see
        /// [`execute`](super::execute)).
        execute: Option<JobFigures>,
    }
}

columns! {
    /// The figures of one cycle.
    #[derive(Debug, Default, Clone)]
    pub(super) struct CycleRow;
    store CycleColumns;
    /// The fixed columns of `cycles`: one row per negotiation cycle.
    schema CYCLES = "cycles" {
        time: Int = "time",
        matches: Int = "matches",
        rejections: Int = "rejections",
        preemptions: Int = "preemptions",
        idle: Int = "idle_jobs",
        running: Int = "running_jobs",
        busy: Float = "busy_slots",
        total: Float = "total_slots",
        pie_spins: Int = "pie_spins",
    }
    extra {
        /// Jobs suspended, and vacates and kills since the last cycle (with
        /// an execute side).
        execute: (i64, i64, i64),
    }
}

columns! {
    /// One user's figures at one cycle.
    #[derive(Debug, Clone)]
    struct UserRow;
    store UserColumns;
    /// The fixed columns of `users`: one row per user per cycle.
    schema USERS = "users" {
        time: Int = "time",
        user: Str = "user",
        group: Str = "group",
        usage: Float = "usage",
        accumulated: Float = "accumulated_usage",
        rup: Float = "rup",
        eup: Float = "eup",
        share: Float = "share",
        idle: Int = "idle",
        running: Int = "running",
    }
}

columns! {
    /// One group's figures at one cycle.
    #[derive(Debug, Clone)]
    struct GroupRow;
    store GroupColumns;
    /// The fixed columns of `groups`: one row per group per cycle.
    schema GROUPS = "groups" {
        time: Int = "time",
        group: Str = "group",
        quota: Float = "quota",
        demand: Float = "demand",
        allocated: Float = "allocated",
        usage: Float = "usage",
    }
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
    users: UserColumns,
    groups: GroupColumns,
    cycles: CycleColumns,
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
        self.users.push(UserRow {
            time,
            user: user.to_string(),
            group: group.to_string(),
            usage,
            accumulated,
            rup,
            eup,
            share,
            idle,
            running,
        });
    }

    /// The execute side's figures of the next user row: jobs suspended
    /// now, vacates and kills so far.
    pub(super) fn user_execute(&mut self, (suspended, vacates, kills): (i64, i64, i64)) {
        self.u_suspended.push(suspended);
        self.u_vacates.push(vacates);
        self.u_kills.push(kills);
    }

    pub(super) fn group(&mut self, time: i64, group: &str, quota: f64, demand: f64, allocated: f64, usage: f64) {
        self.groups.push(GroupRow { time, group: group.to_string(), quota, demand, allocated, usage });
    }

    pub(super) fn cycle(&mut self, time: i64, row: &CycleRow) {
        self.cycles.push(CycleRow { time, ..row.clone() });
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
        c.users.into_table(&mut users);
        if c.execute {
            users.push("suspended", Column::Int(c.u_suspended));
            users.push("vacates", Column::Int(c.u_vacates));
            users.push("kills", Column::Int(c.u_kills));
        }
        let mut groups = Table::new("groups");
        c.groups.into_table(&mut groups);
        let mut table = Table::new("cycles");
        c.cycles.into_table(&mut table);
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
        self.retired.fixed.len()
    }

    /// The rows [`retire`](Self::retire) holds, as a `jobs` table; they
    /// are no longer held.
    pub(super) fn take_retired(&mut self) -> Table {
        // The next rows get as much room as these had (batches are alike):
        // the columns do not grow, copying themselves, batch after batch.
        let next = JobColumns::with_capacity(self.retired.fixed.len(), self.execute);
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

/// The `jobs` table's columns: the fixed ones, and the startd's figures
/// when `execute`.
#[derive(Default, Clone)]
struct JobColumns {
    fixed: JobFixedColumns,
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
            fixed: JobFixedColumns::with_capacity(rows),
            execute,
            suspended: Vec::with_capacity(figures),
            suspensions: Vec::with_capacity(figures),
            vacates: Vec::with_capacity(figures),
            kills: Vec::with_capacity(figures),
        }
    }

    fn push(&mut self, mut r: JobRow) {
        let figures = r.execute.take();
        self.fixed.push(r);
        if self.execute {
            let f = figures.unwrap_or_default();
            self.suspended.push(f.suspended);
            self.suspensions.push(f.suspensions);
            self.vacates.push(f.vacates);
            self.kills.push(f.kills);
        }
    }

    fn table(self) -> Table {
        let mut t = Table::new("jobs");
        self.fixed.into_table(&mut t);
        if self.execute {
            t.push("suspended", Column::Int(self.suspended));
            t.push("suspensions", Column::Int(self.suspensions));
            t.push("vacates", Column::Int(self.vacates));
            t.push("kills", Column::Int(self.kills));
        }
        t
    }
}
