//! The report's charts, built from the result tables.
//!
//! * [`usage_by_user`]: each user's weighted slots in use, stacked, with
//!   the pool's size (`total_slots` of `cycles`) as a dashed line.
//! * [`usage_by_group`]: each group's usage (solid) against its quota
//!   (dashed, same colour), when the run has groups.
//! * [`priorities`]: each user's real (RUP) or effective (EUP) priority.
//! * [`wait_histogram`] and [`wait_cdf`]: how long jobs waited to start
//!   (the `wait` column of `jobs`: for a job that never started, the time
//!   it waited until the run ended).
//! * [`utilisation`]: busy over total slots, cycle by cycle.
//!
//! Users and groups are drawn in the order of their names, so the same
//! tables always give the same chart.

use std::collections::{BTreeMap, BTreeSet};

use super::chart::{colour, tick_step, Chart, Series, Style};
use super::columns::{floats, ints, strs};
use super::stats::TimeUnit;
use super::ReportError;
use crate::table::Table;

/// The unit for the times of a table's `time` column.
fn time_unit(times: &[i64]) -> TimeUnit {
    let lo = times.iter().min().copied().unwrap_or(0);
    let hi = times.iter().max().copied().unwrap_or(0);
    TimeUnit::for_span((hi - lo) as f64)
}

/// `value` per `(key, time)`, keys and times in order.
struct Grid {
    times: Vec<i64>,
    keys: Vec<String>,
    values: BTreeMap<(String, i64), f64>,
}

impl Grid {
    fn new(times: &[i64], keys: &[String], values: &[f64]) -> Grid {
        let mut grid = Grid {
            times: times.iter().copied().collect::<BTreeSet<_>>().into_iter().collect(),
            keys: keys.iter().cloned().collect::<BTreeSet<_>>().into_iter().collect(),
            values: BTreeMap::new(),
        };
        for ((t, k), v) in times.iter().zip(keys).zip(values) {
            *grid.values.entry((k.clone(), *t)).or_insert(0.0) += v;
        }
        grid
    }

    fn get(&self, key: &str, time: i64) -> Option<f64> {
        self.values.get(&(key.to_string(), time)).copied()
    }
}

/// Usage stacked by user; `cycles` adds the pool's size.
pub fn usage_by_user(users: &Table, cycles: Option<&Table>) -> Result<Chart, ReportError> {
    let times = ints(users, "time")?;
    let grid = Grid::new(times, strs(users, "user")?, floats(users, "usage")?);
    let unit = time_unit(times);
    let mut chart =
        Chart::new("usage_by_user", "Usage by user", &format!("time ({})", unit.name), "weighted slots in use");
    let mut lower = vec![0.0; grid.times.len()];
    for (i, user) in grid.keys.iter().enumerate() {
        let upper: Vec<f64> =
            grid.times.iter().zip(&lower).map(|(&t, l)| l + grid.get(user, t).unwrap_or(0.0)).collect();
        let points = grid.times.iter().zip(&upper).map(|(&t, &u)| (t as f64 / unit.seconds, u)).collect();
        chart.series.push(Series {
            name: user.clone(),
            points,
            style: Style::Area { lower: lower.clone() },
            colour: colour(i),
        });
        lower = upper;
    }
    if let Some(cycles) = cycles {
        let t = ints(cycles, "time")?;
        let total = floats(cycles, "total_slots")?;
        if !t.is_empty() {
            chart.series.push(Series {
                name: "pool (total slots)".into(),
                points: t.iter().zip(total).map(|(&t, &v)| (t as f64 / unit.seconds, v)).collect(),
                style: Style::Dashed,
                colour: "#000000".into(),
            });
        }
    }
    chart.fit();
    Ok(chart)
}

/// Usage of each group against its quota; `None` when `groups` is empty.
pub fn usage_by_group(groups: &Table) -> Result<Option<Chart>, ReportError> {
    let times = ints(groups, "time")?;
    if times.is_empty() {
        return Ok(None);
    }
    let names = strs(groups, "group")?;
    let usage = Grid::new(times, names, floats(groups, "usage")?);
    let quota = Grid::new(times, names, floats(groups, "quota")?);
    let unit = time_unit(times);
    let mut chart = Chart::new(
        "usage_by_group",
        "Usage by group against quota",
        &format!("time ({})", unit.name),
        "weighted slots",
    );
    for (i, group) in usage.keys.iter().enumerate() {
        for (grid, style, suffix) in [(&usage, Style::Line, "usage"), (&quota, Style::Dashed, "quota")] {
            let points =
                grid.times.iter().filter_map(|&t| grid.get(group, t).map(|v| (t as f64 / unit.seconds, v))).collect();
            chart.series.push(Series { name: format!("{group} {suffix}"), points, style, colour: colour(i) });
        }
    }
    chart.fit();
    Ok(Some(chart))
}

/// Each user's priority over time: `column` is `rup` or `eup`.
pub fn priorities(users: &Table, column: &str) -> Result<Chart, ReportError> {
    let times = ints(users, "time")?;
    let grid = Grid::new(times, strs(users, "user")?, floats(users, column)?);
    let unit = time_unit(times);
    let (id, title, label) = if column == "eup" {
        ("eup", "Effective user priority (EUP)", "EUP (smaller gets more)")
    } else {
        ("rup", "Real user priority (RUP)", "RUP")
    };
    let mut chart = Chart::new(id, title, &format!("time ({})", unit.name), label);
    for (i, user) in grid.keys.iter().enumerate() {
        let points =
            grid.times.iter().filter_map(|&t| grid.get(user, t).map(|v| (t as f64 / unit.seconds, v))).collect();
        chart.series.push(Series { name: user.clone(), points, style: Style::Line, colour: colour(i) });
    }
    chart.fit();
    Ok(chart)
}

/// The waits of `jobs`, in seconds, of all jobs and per user (in order).
type Waits = (Vec<f64>, BTreeMap<String, Vec<f64>>);

fn waits(jobs: &Table) -> Result<Waits, ReportError> {
    let wait = ints(jobs, "wait")?;
    let users = strs(jobs, "user")?;
    let mut per_user: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (u, &w) in users.iter().zip(wait) {
        per_user.entry(u.clone()).or_default().push(w as f64);
    }
    Ok((wait.iter().map(|&w| w as f64).collect(), per_user))
}

/// The number of jobs per bin of wait time (about 10 to 25 bins of a
/// round width).
pub fn wait_histogram(jobs: &Table) -> Result<Chart, ReportError> {
    let (all, _) = waits(jobs)?;
    let max = all.iter().copied().fold(0.0, f64::max);
    let unit = TimeUnit::for_span(max);
    let width = tick_step(max / unit.seconds) / 2.0;
    let mut counts: BTreeMap<i64, f64> = BTreeMap::new();
    for w in &all {
        *counts.entry((w / unit.seconds / width).floor() as i64).or_insert(0.0) += 1.0;
    }
    let mut chart = Chart::new("wait_histogram", "Wait time to start", &format!("wait ({})", unit.name), "jobs");
    chart.series.push(Series {
        name: format!("jobs ({})", all.len()),
        points: counts.iter().map(|(&b, &n)| ((b as f64 + 0.5) * width, n)).collect(),
        style: Style::Bars { width },
        colour: colour(0),
    });
    chart.fit();
    chart.x_range.0 = chart.x_range.0.min(0.0);
    Ok(chart)
}

/// The cumulative distribution of wait times: the fraction of jobs that
/// waited at most x, for all jobs (black) and per user.
pub fn wait_cdf(jobs: &Table) -> Result<Chart, ReportError> {
    let (all, per_user) = waits(jobs)?;
    let max = all.iter().copied().fold(0.0, f64::max);
    let unit = TimeUnit::for_span(max);
    let mut chart =
        Chart::new("wait_cdf", "Wait time distribution (CDF)", &format!("wait ({})", unit.name), "fraction of jobs");
    let cdf = |values: &[f64]| -> Vec<(f64, f64)> {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len() as f64;
        let mut points = Vec::with_capacity(2 * v.len() + 1);
        points.push((0.0, 0.0));
        let mut i = 0;
        while i < v.len() {
            let x = v[i];
            let below = i as f64 / n;
            while i < v.len() && v[i] == x {
                i += 1;
            }
            points.push((x / unit.seconds, below));
            points.push((x / unit.seconds, i as f64 / n));
        }
        points
    };
    for (i, (user, values)) in per_user.iter().enumerate() {
        chart.series.push(Series { name: user.clone(), points: cdf(values), style: Style::Line, colour: colour(i) });
    }
    if per_user.len() > 1 {
        chart.series.push(Series {
            name: "all jobs".into(),
            points: cdf(&all),
            style: Style::Dashed,
            colour: "#000000".into(),
        });
    }
    chart.fit();
    chart.y_range = (0.0, 1.0);
    Ok(chart)
}

/// Busy over total slots, cycle by cycle (0 when the pool is empty).
pub fn utilisation(cycles: &Table) -> Result<Chart, ReportError> {
    let times = ints(cycles, "time")?;
    let busy = floats(cycles, "busy_slots")?;
    let total = floats(cycles, "total_slots")?;
    let unit = time_unit(times);
    let mut chart = Chart::new("utilisation", "Utilisation", &format!("time ({})", unit.name), "busy / total slots");
    let points = times
        .iter()
        .zip(busy.iter().zip(total))
        .map(|(&t, (&b, &n))| (t as f64 / unit.seconds, if n > 0.0 { b / n } else { 0.0 }))
        .collect();
    chart.series.push(Series { name: "utilisation".into(), points, style: Style::Line, colour: colour(2) });
    chart.fit();
    chart.y_range = (0.0, 1.0);
    Ok(chart)
}
