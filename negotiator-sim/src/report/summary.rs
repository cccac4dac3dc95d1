//! The report's summary: one row per user.
//!
//! | column | what |
//! |---|---|
//! | `user`, `group` | the submitter and its accounting group |
//! | `jobs` | jobs in `jobs` |
//! | `started` | of those, jobs that started (`start` ≥ 0) |
//! | `mean_wait`, `p95_wait` | mean and 95th percentile (nearest rank) of `wait`, in seconds |
//! | `usage_share` | the user's weighted slot-seconds (last `accumulated_usage`) over all users' |
//!
//! ```
//! use negotiator_sim::report::summary::summary;
//! use negotiator_sim::table::{Column, Table};
//!
//! let mut jobs = Table::new("jobs");
//! jobs.push("user", Column::Str(vec!["a".into(), "a".into(), "b".into()]));
//! jobs.push("group", Column::Str(vec!["".into(); 3]));
//! jobs.push("start", Column::Int(vec![10, 30, -1]));
//! jobs.push("wait", Column::Int(vec![10, 30, 100]));
//! let s = summary(None, &jobs)?;
//! assert_eq!(s.column("mean_wait"), Some(&Column::Float(vec![20.0, 100.0])));
//! assert_eq!(s.column("started"), Some(&Column::Int(vec![2, 0])));
//! # Ok::<(), negotiator_sim::report::ReportError>(())
//! ```

use std::collections::BTreeMap;

use super::columns::{floats, ints, strs};
use super::stats::{mean, percentile};
use super::ReportError;
use crate::table::{Column, Table};

#[derive(Default)]
struct Row {
    group: String,
    waits: Vec<f64>,
    started: i64,
    usage: f64,
}

/// The per-user summary of a run (`users` gives the usage shares; without
/// it they are 0), users in order of name.
pub fn summary(users: Option<&Table>, jobs: &Table) -> Result<Table, ReportError> {
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let names = strs(jobs, "user")?;
    let groups = strs(jobs, "group")?;
    let start = ints(jobs, "start")?;
    let wait = ints(jobs, "wait")?;
    for i in 0..names.len() {
        let row = rows.entry(names[i].clone()).or_default();
        row.group = groups[i].clone();
        row.waits.push(wait[i] as f64);
        row.started += i64::from(start[i] >= 0);
    }
    let mut total = 0.0;
    if let Some(users) = users {
        let times = ints(users, "time")?;
        let names = strs(users, "user")?;
        let groups = strs(users, "group")?;
        let acc = floats(users, "accumulated_usage")?;
        let mut last: BTreeMap<&str, (i64, f64)> = BTreeMap::new();
        for i in 0..names.len() {
            let e = last.entry(&names[i]).or_insert((i64::MIN, 0.0));
            if times[i] >= e.0 {
                *e = (times[i], acc[i]);
            }
            let row = rows.entry(names[i].clone()).or_default();
            if row.group.is_empty() {
                row.group = groups[i].clone();
            }
        }
        for (name, (_, a)) in last {
            total += a;
            if let Some(row) = rows.get_mut(name) {
                row.usage = a;
            }
        }
    }
    let mut t = Table::new("summary");
    t.push("user", Column::Str(rows.keys().cloned().collect()));
    t.push("group", Column::Str(rows.values().map(|r| r.group.clone()).collect()));
    t.push("jobs", Column::Int(rows.values().map(|r| r.waits.len() as i64).collect()));
    t.push("started", Column::Int(rows.values().map(|r| r.started).collect()));
    t.push("mean_wait", Column::Float(rows.values().map(|r| mean(&r.waits)).collect()));
    t.push("p95_wait", Column::Float(rows.values().map(|r| percentile(&r.waits, 95.0)).collect()));
    t.push(
        "usage_share",
        Column::Float(rows.values().map(|r| if total > 0.0 { r.usage / total } else { 0.0 }).collect()),
    );
    Ok(t)
}
