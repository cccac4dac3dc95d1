//! Two runs of the same workload (A and B: two policies, two versions)
//! compared, per user and for the whole pool.
//!
//! Per user, and for all users together (the row `(all)`):
//!
//! * **fair-share error**: the mean, over the cycles in which the user
//!   appears in `users`, of |share − fair share|, where *share* is the
//!   user's fraction of the pool's weighted slots in use (the `share`
//!   column) and *fair share* is the fraction the user would hold if the
//!   pool were split by priority factor alone, without history:
//!   the cycle's `total_slots` are divided among the users with jobs
//!   (`idle + running > 0`) in proportion to 1 / priority factor
//!   (factor = EUP / RUP), none getting more than it asks for (its
//!   usage plus its idle jobs, each idle job counted at the user's mean
//!   weight per running job, or 1), what one leaves going to the others
//!   (max-min fairness, "water filling"); the fair share is the user's
//!   part of what is handed out. With equal factors and users that all
//!   want more than the pool, the fair share of each of n users is 1/n.
//!   0 means the pool was split exactly by the factors; the row `(all)`
//!   is the mean over users. It measures the negotiator's memory (RUP
//!   lags usage) and its granularity, so even a perfect HTCondor has
//!   some;
//! * **utilisation**: the user's mean over cycles of usage / total slots;
//!   for `(all)`, busy / total slots;
//! * **mean wait** and **p95 wait**: of the `wait` column of the user's
//!   jobs, in seconds (95th percentile by nearest rank);
//! * **jobs**: the user's jobs.
//!
//! ```
//! use negotiator_sim::report::compare::water_fill;
//! // 10 slots, equal factors: the user who wants 2 gets 2, the others 4 each.
//! assert_eq!(water_fill(10.0, &[1.0, 1.0, 1.0], &[2.0, 100.0, 100.0]), vec![2.0, 4.0, 4.0]);
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::columns::{find, floats, ints, strs};
use super::stats::{mean, percentile};
use super::ReportError;
use crate::table::{Column, Table};

/// The name of the row that stands for all users.
pub const ALL: &str = "(all)";

/// Shares `capacity` among claimants in proportion to `weights`, none
/// getting more than its `caps` entry; what a capped claimant leaves goes
/// to the others. When the caps add up to less than the capacity, every
/// claimant gets its cap.
pub fn water_fill(capacity: f64, weights: &[f64], caps: &[f64]) -> Vec<f64> {
    let n = weights.len();
    let mut out = vec![0.0; n];
    let mut open: Vec<usize> = (0..n).filter(|&i| weights[i] > 0.0 && caps[i] > 0.0).collect();
    let mut left = capacity.max(0.0);
    // Claimants in order of cap per weight: the first to fill up.
    open.sort_by(|&a, &b| (caps[a] / weights[a]).total_cmp(&(caps[b] / weights[b])).then(a.cmp(&b)));
    let mut weight: f64 = open.iter().map(|&i| weights[i]).sum();
    for &i in &open {
        let level = left / weight;
        let give = (level * weights[i]).min(caps[i]);
        out[i] = give;
        left -= give;
        weight -= weights[i];
    }
    out
}

/// The fair share of every row of `users` (see the module's doc), given
/// each cycle's `total_slots` in `cycles`.
pub fn fair_shares(users: &Table, cycles: &Table) -> Result<Vec<f64>, ReportError> {
    let time = ints(users, "time")?;
    let usage = floats(users, "usage")?;
    let rup = floats(users, "rup")?;
    let eup = floats(users, "eup")?;
    let idle = ints(users, "idle")?;
    let running = ints(users, "running")?;
    let total: BTreeMap<i64, f64> =
        ints(cycles, "time")?.iter().copied().zip(floats(cycles, "total_slots")?.iter().copied()).collect();
    let mut rows_at: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (i, &t) in time.iter().enumerate() {
        rows_at.entry(t).or_default().push(i);
    }
    let mut fair = vec![0.0; time.len()];
    for (t, rows) in rows_at {
        let weights: Vec<f64> = rows
            .iter()
            .map(|&i| {
                if idle[i] + running[i] <= 0 {
                    return 0.0;
                }
                let factor = if rup[i] > 0.0 && eup[i] > 0.0 { eup[i] / rup[i] } else { 1.0 };
                1.0 / factor
            })
            .collect();
        let caps: Vec<f64> = rows
            .iter()
            .map(|&i| {
                let per_job = if running[i] > 0 && usage[i] > 0.0 { usage[i] / running[i] as f64 } else { 1.0 };
                usage[i] + idle[i].max(0) as f64 * per_job
            })
            .collect();
        let capacity = total.get(&t).copied().unwrap_or_else(|| caps.iter().sum());
        let slots = water_fill(capacity, &weights, &caps);
        let handed_out: f64 = slots.iter().sum();
        for (&i, s) in rows.iter().zip(slots) {
            fair[i] = if handed_out > 0.0 { s / handed_out } else { 0.0 };
        }
    }
    Ok(fair)
}

/// The measures of one user (or of the pool) in one run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Measures {
    /// Mean |share − fair share| over the user's cycles.
    pub fair_share_error: f64,
    /// Mean usage over total slots.
    pub utilisation: f64,
    /// Mean wait of the user's jobs, seconds.
    pub mean_wait: f64,
    /// 95th percentile of the waits, seconds.
    pub p95_wait: f64,
    /// The user's jobs.
    pub jobs: usize,
}

/// The measures of every user of a run, and of `(all)`.
pub fn measures(tables: &[Table]) -> Result<BTreeMap<String, Measures>, ReportError> {
    let need = |name: &str| {
        find(tables, name).ok_or_else(|| ReportError::Table { table: name.to_string(), message: "missing".into() })
    };
    let users = need("users")?;
    let cycles = need("cycles")?;
    let jobs = need("jobs")?;
    let mut out: BTreeMap<String, Measures> = BTreeMap::new();
    let fair = fair_shares(users, cycles)?;
    let names = strs(users, "user")?;
    let share = floats(users, "share")?;
    let usage = floats(users, "usage")?;
    let time = ints(users, "time")?;
    let total: BTreeMap<i64, f64> =
        ints(cycles, "time")?.iter().copied().zip(floats(cycles, "total_slots")?.iter().copied()).collect();
    let mut errors: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut utilisation: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for i in 0..names.len() {
        errors.entry(&names[i]).or_default().push((share[i] - fair[i]).abs());
        let t = total.get(&time[i]).copied().unwrap_or(0.0);
        utilisation.entry(&names[i]).or_default().push(if t > 0.0 { usage[i] / t } else { 0.0 });
    }
    let mut waits: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let wait = ints(jobs, "wait")?;
    for (u, &w) in strs(jobs, "user")?.iter().zip(wait) {
        waits.entry(u).or_default().push(w as f64);
    }
    let all_users: BTreeSet<&str> = errors.keys().chain(waits.keys()).copied().collect();
    let cycle_count = total.len().max(1) as f64;
    for u in &all_users {
        let w = waits.get(u).map(Vec::as_slice).unwrap_or(&[]);
        out.insert(
            u.to_string(),
            Measures {
                fair_share_error: errors.get(u).map_or(0.0, |e| mean(e)),
                // Cycles without a row for the user count as 0.
                utilisation: utilisation.get(u).map_or(0.0, |v| v.iter().sum::<f64>() / cycle_count),
                mean_wait: mean(w),
                p95_wait: percentile(w, 95.0),
                jobs: w.len(),
            },
        );
    }
    let all_waits: Vec<f64> = wait.iter().map(|&w| w as f64).collect();
    let per_user: Vec<f64> = errors.values().map(|e| mean(e)).collect();
    out.insert(
        ALL.to_string(),
        Measures {
            fair_share_error: mean(&per_user),
            utilisation: super::mean_utilisation(floats(cycles, "busy_slots")?, floats(cycles, "total_slots")?),
            mean_wait: mean(&all_waits),
            p95_wait: percentile(&all_waits, 95.0),
            jobs: all_waits.len(),
        },
    );
    Ok(out)
}

/// Two runs compared: per user (and `(all)`, first), each measure in A, in
/// B and B − A. A user missing from a run has NaN there.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The rows: `(user, A, B)`, `(all)` first, then users by name.
    pub rows: Vec<(String, Option<Measures>, Option<Measures>)>,
}

/// Compares the tables of run A with those of run B.
pub fn compare(a: &[Table], b: &[Table]) -> Result<Comparison, ReportError> {
    let ma = measures(a)?;
    let mb = measures(b)?;
    let mut names: Vec<&String> = ma.keys().chain(mb.keys()).filter(|n| *n != ALL).collect();
    names.sort();
    names.dedup();
    let mut rows = vec![(ALL.to_string(), ma.get(ALL).copied(), mb.get(ALL).copied())];
    for n in names {
        rows.push((n.clone(), ma.get(n).copied(), mb.get(n).copied()));
    }
    Ok(Comparison { rows })
}

type Getter = fn(&Measures) -> f64;

const MEASURES: &[(&str, Getter)] = &[
    ("fair_share_error", |m| m.fair_share_error),
    ("utilisation", |m| m.utilisation),
    ("mean_wait", |m| m.mean_wait),
    ("p95_wait", |m| m.p95_wait),
    ("jobs", |m| m.jobs as f64),
];

impl Comparison {
    /// The comparison as a table `compare`: `user`, then for each measure
    /// `NAME_a`, `NAME_b` and `NAME_diff` (B − A).
    pub fn table(&self) -> Table {
        let mut t = Table::new("compare");
        t.push("user", Column::Str(self.rows.iter().map(|r| r.0.clone()).collect()));
        for &(name, get) in MEASURES {
            let a: Vec<f64> = self.rows.iter().map(|r| r.1.as_ref().map_or(f64::NAN, get)).collect();
            let b: Vec<f64> = self.rows.iter().map(|r| r.2.as_ref().map_or(f64::NAN, get)).collect();
            let d: Vec<f64> = a.iter().zip(&b).map(|(a, b)| b - a).collect();
            t.push(&format!("{name}_a"), Column::Float(a));
            t.push(&format!("{name}_b"), Column::Float(b));
            t.push(&format!("{name}_diff"), Column::Float(d));
        }
        t
    }

    /// The comparison as text: one block per user, a line per measure with
    /// A, B and B − A.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let show = |name: &str, x: f64| -> String {
            if x.is_nan() {
                "-".to_string()
            } else if name.ends_with("wait") {
                format!("{x:.0} s")
            } else if name == "jobs" {
                format!("{x:.0}")
            } else if name == "utilisation" {
                format!("{:.1} %", 100.0 * x)
            } else {
                format!("{x:.4}")
            }
        };
        let _ = writeln!(s, "{:<28} {:>14} {:>14} {:>14}", "", "A", "B", "B - A");
        for (user, a, b) in &self.rows {
            let _ = writeln!(s, "{user}");
            for &(name, get) in MEASURES {
                let x = a.as_ref().map_or(f64::NAN, get);
                let y = b.as_ref().map_or(f64::NAN, get);
                // Differences within rounding are no difference (no "-0.0").
                let diff = if (y - x).abs() < 1e-9 { 0.0 } else { y - x };
                let d = if diff.is_nan() {
                    "-".to_string()
                } else {
                    let shown = show(name, diff);
                    if diff > 0.0 {
                        format!("+{shown}")
                    } else {
                        shown
                    }
                };
                let _ = writeln!(
                    s,
                    "  {:<26} {:>14} {:>14} {:>14}",
                    name.replace('_', " "),
                    show(name, x),
                    show(name, y),
                    d
                );
            }
        }
        s
    }
}
