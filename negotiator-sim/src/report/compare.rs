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
//! * **utilisation**: the user's mean, over the cycles recorded in
//!   `users` (every cycle, or one per `record_every`), of usage / total
//!   slots (a recorded cycle without a row for the user counts as 0): the
//!   fraction of the pool's weighted slot-time its jobs held; for `(all)`,
//!   the mean over all cycles of busy / total slots;
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

use super::chart::{colour, Chart, Series, Style};
use super::columns::{check_lengths, find, floats, ints, strs};
use super::figures::{all_waits, cdf_points, table_time_unit, utilisation_points};
use super::stats::{mean, percentile, TimeUnit};
use super::svg::escape;
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
    check_lengths(users)?;
    check_lengths(cycles)?;
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
    /// Mean usage over total slots, over the recorded cycles.
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
    for table in [users, cycles, jobs] {
        check_lengths(table)?;
    }
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
    // The users table has rows only at the recorded cycles (every cycle,
    // or one every `record_every`): the mean is over those.
    let recorded = time.iter().collect::<BTreeSet<_>>().len().max(1) as f64;
    for u in &all_users {
        let w = waits.get(u).map(Vec::as_slice).unwrap_or(&[]);
        out.insert(
            u.to_string(),
            Measures {
                fair_share_error: errors.get(u).map_or(0.0, |e| mean(e)),
                // Recorded cycles without a row for the user count as 0.
                utilisation: utilisation.get(u).map_or(0.0, |v| v.iter().sum::<f64>() / recorded),
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
///
/// ```
/// use negotiator_sim::report::compare::compare;
/// use negotiator_sim::table::{Column, Table};
///
/// // One cycle, a pool of 4 slots, two users with idle jobs and equal
/// // factors; run A gives alice 3 slots and bob 1, run B 2 and 2.
/// fn run(alice: f64, bob_wait: i64) -> Vec<Table> {
///     let mut users = Table::new("users");
///     users.push("time", Column::Int(vec![0, 0]));
///     users.push("user", Column::Str(vec!["alice".into(), "bob".into()]));
///     users.push("usage", Column::Float(vec![alice, 4.0 - alice]));
///     users.push("rup", Column::Float(vec![1.0, 1.0]));
///     users.push("eup", Column::Float(vec![1.0, 1.0]));
///     users.push("share", Column::Float(vec![alice / 4.0, 1.0 - alice / 4.0]));
///     users.push("idle", Column::Int(vec![5, 5]));
///     users.push("running", Column::Int(vec![alice as i64, 4 - alice as i64]));
///     let mut cycles = Table::new("cycles");
///     cycles.push("time", Column::Int(vec![0]));
///     cycles.push("busy_slots", Column::Float(vec![4.0]));
///     cycles.push("total_slots", Column::Float(vec![4.0]));
///     let mut jobs = Table::new("jobs");
///     jobs.push("user", Column::Str(vec!["alice".into(), "bob".into()]));
///     jobs.push("wait", Column::Int(vec![0, bob_wait]));
///     vec![users, cycles, jobs]
/// }
/// let c = compare(&run(3.0, 600), &run(2.0, 60))?;
/// let t = c.table();
/// assert_eq!(t.column("user"), Some(&Column::Str(vec!["(all)".into(), "alice".into(), "bob".into()])));
/// // Each deserved half: A was a quarter off for both, B exact.
/// assert_eq!(t.column("fair_share_error_a"), Some(&Column::Float(vec![0.25, 0.25, 0.25])));
/// assert_eq!(t.column("fair_share_error_diff"), Some(&Column::Float(vec![-0.25, -0.25, -0.25])));
/// assert!(c.text().contains("  mean wait                           600 s           60 s         -540 s"));
/// # Ok::<(), negotiator_sim::report::ReportError>(())
/// ```
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

    /// The measures shown for people: per user, per measure, its name
    /// and A, B and B − A as text (`-` where a run lacks the user).
    pub fn cells(&self) -> Vec<(String, Vec<[String; 4]>)> {
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
        let mut out = Vec::new();
        for (user, a, b) in &self.rows {
            let mut lines = Vec::new();
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
                lines.push([name.replace('_', " "), show(name, x), show(name, y), d]);
            }
            out.push((user.clone(), lines));
        }
        out
    }

    /// The comparison as text: one block per user, a line per measure with
    /// A, B and B − A.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{:<28} {:>14} {:>14} {:>14}", "", "A", "B", "B - A");
        for (user, lines) in self.cells() {
            let _ = writeln!(s, "{user}");
            for [name, a, b, d] in lines {
                let _ = writeln!(s, "  {name:<26} {a:>14} {b:>14} {d:>14}");
            }
        }
        s
    }

    /// The comparison as an HTML table: a heading row per user, a row per
    /// measure.
    pub fn html(&self) -> String {
        let mut s =
            String::from("<table class=\"compare\">\n<tr><th>measure</th><th>A</th><th>B</th><th>B − A</th></tr>\n");
        for (user, lines) in self.cells() {
            let _ = writeln!(s, "<tr><th colspan=\"4\">{}</th></tr>", escape(&user));
            for [name, a, b, d] in lines {
                let _ = writeln!(
                    s,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    escape(&name),
                    escape(&a),
                    escape(&b),
                    escape(&d)
                );
            }
        }
        s.push_str("</table>\n");
        s
    }
}

/// Charts of the two runs over each other: `compare_utilisation` (busy
/// over total slots, A and B) and `compare_wait_cdf` (the distribution of
/// all jobs' waits, A and B), from whichever tables both runs have.
pub fn charts(a: &[Table], b: &[Table]) -> Result<Vec<Chart>, ReportError> {
    let mut out = Vec::new();
    if let (Some(ca), Some(cb)) = (find(a, "cycles"), find(b, "cycles")) {
        // One unit for both: that of the longer run.
        let (ua, ub) = (table_time_unit(ca)?, table_time_unit(cb)?);
        let unit = if ua.seconds >= ub.seconds { ua } else { ub };
        let mut c = Chart::new(
            "compare_utilisation",
            "Utilisation, A and B",
            &format!("time ({})", unit.name),
            "busy / total slots",
        );
        c.series.push(Series {
            name: "A".into(),
            points: utilisation_points(ca, unit)?,
            style: Style::Line,
            colour: colour(0),
        });
        c.series.push(Series {
            name: "B".into(),
            points: utilisation_points(cb, unit)?,
            style: Style::Line,
            colour: colour(1),
        });
        c.fit();
        c.y_range = (0.0, 1.0);
        out.push(c);
    }
    if let (Some(ja), Some(jb)) = (find(a, "jobs"), find(b, "jobs")) {
        let (wa, wb) = (all_waits(ja)?, all_waits(jb)?);
        let max = wa.iter().chain(&wb).copied().fold(0.0, f64::max);
        let unit = TimeUnit::for_span(max);
        let mut c = Chart::new(
            "compare_wait_cdf",
            "Wait time distribution, A and B",
            &format!("wait ({})", unit.name),
            "fraction of jobs",
        );
        c.series.push(Series {
            name: "A".into(),
            points: cdf_points(&wa, unit),
            style: Style::Line,
            colour: colour(0),
        });
        c.series.push(Series {
            name: "B".into(),
            points: cdf_points(&wb, unit),
            style: Style::Line,
            colour: colour(1),
        });
        c.fit();
        c.y_range = (0.0, 1.0);
        out.push(c);
    }
    Ok(out)
}
