//! What a negotiation cycle decided, for Python (`CycleOutcome`, with its
//! matches, rejections, per-submitter and per-group figures and
//! statistics), and the outcome's tables as columns for pyarrow and
//! pandas.
//!
//! Each Python class is declared once, with [`record!`]: a field is an
//! attribute of the class, filled from the matchmaker's type by the
//! expression beside it; the fields of the `columns` block are also, in
//! that order and under the same names, the columns of the class's table
//! (`CycleOutcome.columns`, `arrow_buffers`, `to_arrow`, `to_pandas`).
//!
//! The matchmaker's outcome types are `Serialize` (its `serde` feature),
//! but the classes and tables are not derived from that: a table must
//! have its columns and their types when it has no row (no match, no
//! rejection), and `Serialize` tells a type's fields only of a value (the
//! outcome types are `#[non_exhaustive]`, so no value can be made here to
//! ask). Where the Python shape differs from the serialized one, on
//! purpose, the declaration says so at the field:
//! - a match's job is also given as `cluster` and `proc` (numbers, for
//!   tables and joins), its `slot_index` (serde skips it) is kept, and how
//!   the slot is taken is `claim` (serde's `reason`);
//! - a match's `preempted_dynamic_slots` is an attribute only (a list is
//!   not a column);
//! - a group's `rounds` are objects as an attribute, and their count as a
//!   column;
//! - the statistics keep the Rust field names (serde writes HTCondor's
//!   `PascalCase` names of the negotiator ad).

use matchmaker::negotiator::{
    CycleOutcome, CycleStats, GroupReport, GroupRoundFigures, GroupRoundTotals, MatchRecord, Rejection, SubmitterReport,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::arrow::{self, Column, ColumnValue};
use crate::errors::error;
use crate::repr::Repr;

/// Declares a Python class made from a matchmaker type, and its table.
///
/// `struct PyX from Src as (py, r) { columns { ... } attributes { ... } }`:
/// each field is `name: Type = value` (`value` an expression of `r: &Src`
/// and `py`, which may use `?`), optionally `, column = other` when the
/// table's column is not the attribute's value. Generates the struct (the
/// `#[pyclass]` given with it), `PyX::new(py, &Src)`, and `PyX::table(py,
/// &[Src])`: the `columns` fields as columns, in order, named as the
/// attributes.
macro_rules! record {
    (@column $value:expr) => { $value };
    (@column $value:expr, $column:expr) => { $column };
    (
        $(#[$meta:meta])*
        struct $class:ident from $src:ty as ($py:ident, $r:ident) {
            columns {
                $( $(#[$cmeta:meta])* $cfield:ident: $cty:ty = $cvalue:expr $(, column = $column:expr)?; )*
            }
            attributes {
                $( $(#[$ameta:meta])* $afield:ident: $aty:ty = $avalue:expr; )*
            }
        }
    ) => {
        $(#[$meta])*
        pub(crate) struct $class {
            $( $(#[$cmeta])* $cfield: $cty, )*
            $( $(#[$ameta])* $afield: $aty, )*
        }

        impl $class {
            /// The Python object of `r`.
            #[allow(unused_variables)]
            fn new($py: Python<'_>, $r: &$src) -> PyResult<$class> {
                Ok($class { $( $cfield: $cvalue, )* $( $afield: $avalue, )* })
            }

            /// The table of `records`: one column per field of `columns`.
            #[allow(dead_code, unused_variables)]
            fn table($py: Python<'_>, records: &[$src]) -> PyResult<Vec<(&'static str, Column)>> {
                Ok(vec![$(
                    (stringify!($cfield), {
                        let mut values = Vec::with_capacity(records.len());
                        for $r in records {
                            values.push(record!(@column $cvalue $(, $column)?));
                        }
                        ColumnValue::column(values)
                    }),
                )*])
            }
        }
    };
}

record! {
    /// One match of a cycle: a submitter's request given a slot.
    #[pyclass(name = "CycleMatch", module = "classad_rs", frozen, get_all)]
    struct PyCycleMatch from MatchRecord as (py, m) {
        columns {
            /// The submitter.
            submitter: String = m.submitter.clone();
            /// The request's representative job, `"cluster.proc"`.
            job: String = m.job.to_string();
            /// Its `ClusterId` (not serialized: `job` holds it).
            cluster: i64 = m.job.cluster;
            /// Its `ProcId` (not serialized: `job` holds it).
            proc: i64 = m.job.proc;
            /// The request's autocluster.
            autocluster: u32 = m.autocluster;
            /// The slot's `Name`.
            slot: String = m.slot.clone();
            /// The slot's position in the cycle's input (not serialized).
            slot_index: usize = m.slot_index;
            /// How the slot is taken: `"no preemption"`, `"rank preemption"` or
            /// `"priority preemption"` (serialized as `reason`).
            claim: &'static str = m.reason();
            /// Who is preempted, if anybody.
            preempting: Option<String> = m.preempting.clone();
            /// What the match costs the submitter (the slot's weight).
            cost: f64 = m.cost;
            /// The pie spin (1 is the first; 0 the floor round).
            spin: u32 = m.spin;
        }
        attributes {
            /// With `ALLOW_PSLOT_PREEMPTION`, the dynamic slots of the matched
            /// partitionable slot that the match preempts, by `Name` (empty for any
            /// other match). Not a column: a list.
            preempted_dynamic_slots: Vec<String> = m.preempted_dynamic_slots.clone();
        }
    }
}

#[pymethods]
impl PyCycleMatch {
    fn __repr__(&self) -> String {
        Repr::new("CycleMatch")
            .field("submitter", &self.submitter)
            .field("job", &self.job)
            .field("slot", &self.slot)
            .field("claim", &self.claim)
            .finish()
    }
}

record! {
    /// A request that found no slot.
    #[pyclass(name = "Rejection", module = "classad_rs", frozen, get_all)]
    struct PyRejection from Rejection as (py, r) {
        columns {
            /// The submitter.
            submitter: String = r.submitter.clone();
            /// The request's representative job, `"cluster.proc"`.
            job: String = r.job.to_string();
            /// The request's autocluster.
            autocluster: u32 = r.autocluster;
            /// Why, in HTCondor's words (`"no match found"`, `"submitter limit
            /// exceeded"`, ...).
            reason: String = r.reason.to_string();
            /// The pie spin.
            spin: u32 = r.spin;
        }
        attributes {}
    }
}

#[pymethods]
impl PyRejection {
    fn __repr__(&self) -> String {
        Repr::new("Rejection")
            .field("submitter", &self.submitter)
            .field("job", &self.job)
            .field("reason", &self.reason)
            .finish()
    }
}

record! {
    /// One submitter's figures in a cycle.
    #[pyclass(name = "SubmitterFigures", module = "classad_rs", frozen, get_all)]
    struct PySubmitterFigures from SubmitterReport as (py, r) {
        columns {
            /// The submitter.
            name: String = r.name.clone();
            /// Its effective priority.
            effective_priority: f64 = r.eup;
            /// Its priority factor.
            priority_factor: f64 = r.factor;
            /// Its share of the pool in the first spin.
            share: f64 = r.share;
            /// Its share times the pool's slot weight (`SubmitterLimit`).
            limit: f64 = r.limit;
            /// Weighted usage when the cycle began.
            usage_before: f64 = r.usage_before;
            /// Weighted usage when it ended.
            usage_after: f64 = r.usage_after;
            /// Idle jobs it offered.
            idle_jobs: u64 = r.idle_jobs;
            /// Matches made.
            matches: u32 = r.matches;
            /// Requests rejected.
            rejections: u32 = r.rejections;
            /// Why it stopped (`"got all it wanted"`, `"share limit"`, ...).
            stopped: String = r.stopped.to_string();
            /// What happened to it, in words an administrator reads
            /// correctly (`"every request tried: 175 of 250 idle jobs
            /// matched, 3 requests rejected"`), as `negotiator-sim cycle`'s
            /// table and JSON give them (not serialized by the matchmaker).
            outcome: String = r.summary();
        }
        attributes {}
    }
}

#[pymethods]
impl PySubmitterFigures {
    fn __repr__(&self) -> String {
        Repr::new("SubmitterFigures")
            .field("name", &self.name)
            .field("share", &self.share)
            .field("matches", &self.matches)
            .field("stopped", &self.stopped)
            .finish()
    }
}

record! {
    /// A group's figures in one allocation round.
    #[pyclass(name = "GroupRound", module = "classad_rs", frozen, get_all)]
    struct PyGroupRound from GroupRoundFigures as (py, f) {
        columns {}
        attributes {
            /// The round (1 is the first).
            round: u32 = f.round;
            /// The quota the group negotiated with.
            quota: f64 = f.quota;
            /// What it asked for.
            requested: f64 = f.requested;
            /// What it was allocated.
            allocated: f64 = f.allocated;
            /// What was left unallocated.
            unallocated: f64 = f.unallocated;
            /// Its sort key (`GROUP_SORT_EXPR`).
            sort_key: f64 = f.sort_key;
            /// Its submitters' limits.
            limits: Vec<f64> = f.limits.clone();
            /// Why it was skipped, if it was.
            skipped: Option<String> = f.skipped.clone();
            /// What capped its allocation, if anything.
            capped_by: Option<String> = f.capped_by.clone();
            /// Matches made in the round.
            matches: usize = f.matches;
            /// Weighted usage after the round.
            usage_after: f64 = f.usage_after;
        }
    }
}

#[pymethods]
impl PyGroupRound {
    fn __repr__(&self) -> String {
        Repr::new("GroupRound")
            .field("round", &self.round)
            .field("quota", &self.quota)
            .field("requested", &self.requested)
            .field("allocated", &self.allocated)
            .field("matches", &self.matches)
            .field("skipped", &self.skipped)
            .field("capped_by", &self.capped_by)
            .finish()
    }
}

record! {
    /// A group of the group tree and its quota in a cycle.
    #[pyclass(name = "GroupFigures", module = "classad_rs", frozen, get_all)]
    struct PyGroupFigures from GroupReport as (py, g) {
        columns {
            /// The group (`"<none>"` is the root).
            name: String = g.name.clone();
            /// Its parent, `None` for the root.
            parent: Option<String> = g.parent.clone();
            /// Its configured quota (`GROUP_QUOTA_*` or a dynamic fraction).
            config_quota: f64 = g.config_quota;
            /// Whether the configured quota is static (a number of slots).
            static_quota: bool = g.static_quota;
            /// Whether it accepts surplus.
            accept_surplus: bool = g.accept_surplus;
            /// Whether it negotiates again as `<none>` (`GROUP_AUTOREGROUP`).
            autoregroup: bool = g.autoregroup;
            /// The quota assigned to it this cycle.
            quota: f64 = g.quota;
            /// The quota of its subtree.
            subtree_quota: f64 = g.subtree_quota;
            /// Its demand (weighted idle and running jobs).
            demand: f64 = g.demand;
            /// Its submitters.
            submitters: usize = g.submitters;
            /// What it was allocated.
            allocated: f64 = g.allocated;
            /// The surplus it received.
            surplus: f64 = g.surplus;
            /// Weighted usage when the cycle began.
            usage_before: f64 = g.usage_before;
            /// Weighted usage when it ended.
            usage_after: f64 = g.usage_after;
            /// Matches made.
            matches: usize = g.matches;
            /// Its figures per allocation round (in the table: how many
            /// rounds).
            rounds: Vec<Py<PyGroupRound>> = g
                .rounds
                .iter()
                .map(|f| Py::new(py, PyGroupRound::new(py, f)?))
                .collect::<PyResult<_>>()?,
                column = g.rounds.len();
            /// Why it got what it got, in words.
            explanation: String = g.explanation.clone();
        }
        attributes {}
    }
}

#[pymethods]
impl PyGroupFigures {
    fn __repr__(&self) -> String {
        Repr::new("GroupFigures")
            .field("name", &self.name)
            .field("quota", &self.quota)
            .field("allocated", &self.allocated)
            .field("matches", &self.matches)
            .finish()
    }
}

record! {
    /// The totals of one group allocation round.
    #[pyclass(name = "GroupRoundTotals", module = "classad_rs", frozen, get_all)]
    struct PyGroupRoundTotals from GroupRoundTotals as (py, t) {
        columns {}
        attributes {
            /// The round.
            round: u32 = t.round;
            /// Allocated in the round.
            allocated: f64 = t.allocated;
            /// Weighted usage after it.
            usage: f64 = t.usage;
            /// Surplus left unallocated.
            surplus: f64 = t.surplus;
            /// The largest change of a group's allocation.
            max_delta: f64 = t.max_delta;
            /// The order groups negotiated in.
            order: Vec<String> = t.order.clone();
        }
    }
}

#[pymethods]
impl PyGroupRoundTotals {
    fn __repr__(&self) -> String {
        Repr::new("GroupRoundTotals")
            .field("round", &self.round)
            .field("allocated", &self.allocated)
            .field("usage", &self.usage)
            .field("surplus", &self.surplus)
            .field("order", &self.order)
            .finish()
    }
}

record! {
    /// A cycle's statistics, as HTCondor publishes them in the negotiator ad
    /// (`LastNegotiationCycle*`).
    #[pyclass(name = "CycleStats", module = "classad_rs", frozen, get_all)]
    struct PyCycleStats from CycleStats as (py, s) {
        columns {}
        attributes {
            /// Slots received.
            total_slots: usize = s.total_slots;
            /// Slots left after trimming.
            trimmed_slots: usize = s.trimmed_slots;
            /// Slots matching could consider.
            candidate_slots: usize = s.candidate_slots;
            /// The pool's slot weight.
            slot_weight_total: f64 = s.slot_weight_total;
            /// The smallest slot weight (not serialized).
            min_slot_weight: f64 = s.min_slot_weight;
            /// Matches.
            matches: usize = s.matches;
            /// Rejections.
            rejections: usize = s.rejections;
            /// Pies negotiated.
            pies: u32 = s.pies;
            /// Pie spins.
            pie_spins: u32 = s.pie_spins;
            /// Requests considered.
            jobs_considered: u64 = s.jobs_considered;
            /// Idle jobs of the submitters negotiated with.
            idle_jobs: u64 = s.idle_jobs;
            /// Submitters negotiated with.
            active_submitters: usize = s.active_submitters;
            /// Submitters stopped by their share, in order (a list; serialized
            /// comma-separated).
            submitters_share_limit: Vec<String> = s.submitters_share_limit.clone();
            /// Match lists built.
            match_lists: u64 = s.match_lists;
            /// Seconds spent accounting and preparing.
            phase2_seconds: f64 = s.phase2_seconds;
            /// Seconds spent matchmaking.
            phase4_seconds: f64 = s.phase4_seconds;
        }
    }
}

#[pymethods]
impl PyCycleStats {
    fn __repr__(&self) -> String {
        Repr::new("CycleStats")
            .field("total_slots", &self.total_slots)
            .field("candidate_slots", &self.candidate_slots)
            .field("matches", &self.matches)
            .field("rejections", &self.rejections)
            .field("pies", &self.pies)
            .field("pie_spins", &self.pie_spins)
            .field("active_submitters", &self.active_submitters)
            .field("idle_jobs", &self.idle_jobs)
            .finish()
    }
}

/// Everything one cycle decided. The lists are made when asked for (keep
/// one in a variable rather than asking again); `to_arrow(table)` and
/// `to_pandas(table)` give the tables `"matches"`, `"rejections"`,
/// `"submitters"`, `"groups"`.
#[pyclass(name = "CycleOutcome", module = "classad_rs", frozen)]
pub(crate) struct PyCycleOutcome {
    outcome: CycleOutcome,
}

impl PyCycleOutcome {
    /// The Python object of `outcome`.
    pub(crate) fn new(outcome: CycleOutcome) -> PyCycleOutcome {
        PyCycleOutcome { outcome }
    }

    /// The table called `which`.
    fn table(&self, py: Python<'_>, which: &str) -> PyResult<Vec<(&'static str, Column)>> {
        let o = &self.outcome;
        match which {
            "matches" => PyCycleMatch::table(py, &o.matches),
            "rejections" => PyRejection::table(py, &o.rejections),
            "submitters" => PySubmitterFigures::table(py, &o.submitters),
            "groups" => PyGroupFigures::table(py, &o.groups),
            other => Err(error(format!(
                "no table {other:?}: the tables are \"matches\", \"rejections\", \"submitters\", \"groups\""
            ))),
        }
    }
}

#[pymethods]
impl PyCycleOutcome {
    /// The matches, in the order they were made.
    #[getter]
    fn matches(&self, py: Python<'_>) -> PyResult<Vec<PyCycleMatch>> {
        self.outcome.matches.iter().map(|m| PyCycleMatch::new(py, m)).collect()
    }

    /// The rejected requests, in order.
    #[getter]
    fn rejections(&self, py: Python<'_>) -> PyResult<Vec<PyRejection>> {
        self.outcome.rejections.iter().map(|r| PyRejection::new(py, r)).collect()
    }

    /// Per submitter, in negotiation order.
    #[getter]
    fn submitters(&self, py: Python<'_>) -> PyResult<Vec<PySubmitterFigures>> {
        self.outcome.submitters.iter().map(|s| PySubmitterFigures::new(py, s)).collect()
    }

    /// With group quotas, the group tree: each group's quota and figures,
    /// breadth first from `"<none>"` (empty without groups).
    #[getter]
    fn groups(&self, py: Python<'_>) -> PyResult<Vec<PyGroupFigures>> {
        self.outcome.groups.iter().map(|g| PyGroupFigures::new(py, g)).collect()
    }

    /// With group quotas, each allocation round's totals.
    #[getter]
    fn group_rounds(&self, py: Python<'_>) -> PyResult<Vec<PyGroupRoundTotals>> {
        self.outcome.group_rounds.iter().map(|t| PyGroupRoundTotals::new(py, t)).collect()
    }

    /// The cycle's statistics.
    #[getter]
    fn stats(&self, py: Python<'_>) -> PyResult<PyCycleStats> {
        PyCycleStats::new(py, &self.outcome.stats)
    }

    /// How many matches `submitter` got.
    fn matches_of(&self, submitter: &str) -> usize {
        self.outcome.matches_of(submitter)
    }

    /// A table as `{column: list}` (plain Python values; `None` for a
    /// missing value).
    #[pyo3(signature = (table="matches"))]
    fn columns<'py>(&self, py: Python<'py>, table: &str) -> PyResult<Bound<'py, PyDict>> {
        arrow::columns(py, &self.table(py, table)?)
    }

    /// A table as Arrow buffers: per column `(name, type, length,
    /// validity, data, offsets)`, type one of `"f64"`, `"i64"`, `"bool"`,
    /// `"str"`; the buffers are bytes laid out as Arrow lays them out
    /// (little-endian values, packed bits, 32-bit string offsets), so that
    /// `pyarrow.Array.from_buffers` wraps them without copying.
    #[pyo3(signature = (table="matches"))]
    fn arrow_buffers<'py>(&self, py: Python<'py>, table: &str) -> PyResult<Bound<'py, PyList>> {
        arrow::buffers(py, &self.table(py, table)?)
    }

    /// A table as a `pyarrow.Table`, its columns wrapping the buffers of
    /// `arrow_buffers` (needs pyarrow).
    #[pyo3(signature = (table="matches"))]
    fn to_arrow<'py>(slf: &Bound<'py, Self>, table: &str) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("classad_rs._tables")?.call_method1("to_arrow", (slf, table))
    }

    /// A table as a `pandas.DataFrame` (needs pandas; through pyarrow when
    /// it is installed).
    #[pyo3(signature = (table="matches"))]
    fn to_pandas<'py>(slf: &Bound<'py, Self>, table: &str) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("classad_rs._tables")?.call_method1("to_pandas", (slf, table))
    }

    fn __repr__(&self) -> String {
        let o = &self.outcome;
        Repr::new("CycleOutcome")
            .text(&format!("{} matches", o.matches.len()))
            .text(&format!("{} rejections", o.rejections.len()))
            .text(&format!("{} submitters", o.submitters.len()))
            .text(&format!("{} groups", o.groups.len()))
            .finish()
    }
}
