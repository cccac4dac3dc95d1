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
//! tables always give the same chart. Big runs are thinned so that pages
//! stay light: at most [`MAX_USERS`] users are drawn one by one (those with
//! the most usage, or the most jobs for the wait charts), the rest stacked
//! together as "other users"; a series has at most [`MAX_POINTS`] times,
//! evenly spread over the run (the values at those cycles, not averages).

use std::collections::{BTreeMap, HashMap};

use super::chart::{colour, tick_step, Chart, Series, Style};
use super::columns::{floats, ints, strs};
use super::stats::TimeUnit;
use super::ReportError;
use crate::table::Table;

/// The most users drawn one by one in a chart.
pub const MAX_USERS: usize = 10;
/// The most times drawn in a series.
pub const MAX_POINTS: usize = 1000;

/// At most `max` evenly spread items of `all`, the first and last included.
fn thin<T: Copy>(all: &[T], max: usize) -> Vec<T> {
    if all.len() <= max || max < 2 {
        return all.to_vec();
    }
    (0..max).map(|i| all[(i * (all.len() - 1) + (max - 1) / 2) / (max - 1)]).collect()
}

/// The `max` keys of largest `weight` (ties by name), in order of name, and
/// the others, in order of name.
fn top_keys(keys: &[String], weight: impl Fn(&str) -> f64, max: usize) -> (Vec<String>, Vec<String>) {
    if keys.len() <= max {
        return (keys.to_vec(), Vec::new());
    }
    let mut ranked: Vec<(f64, &String)> = keys.iter().map(|k| (weight(k), k)).collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let mut top: Vec<String> = ranked[..max - 1].iter().map(|(_, k)| (*k).clone()).collect();
    let mut rest: Vec<String> = ranked[max - 1..].iter().map(|(_, k)| (*k).clone()).collect();
    top.sort();
    rest.sort();
    (top, rest)
}

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
    key_index: HashMap<String, usize>,
    values: Store,
    totals: Vec<f64>,
}

/// A grid's values by (key index, time index): dense (NaN: no row) when
/// most keys have a row at most times, as in the simulator's tables.
enum Store {
    Dense(Vec<f64>),
    Sparse(HashMap<(usize, usize), f64>),
}

impl Grid {
    fn new(times: &[i64], keys: &[String], values: &[f64]) -> Grid {
        let mut sorted_times = times.to_vec();
        sorted_times.sort_unstable();
        sorted_times.dedup();
        // Keys numbered as met, then renumbered in order of name.
        let mut met: HashMap<&str, usize> = HashMap::new();
        let row_keys: Vec<usize> = keys
            .iter()
            .map(|k| {
                let n = met.len();
                *met.entry(k.as_str()).or_insert(n)
            })
            .collect();
        let mut names: Vec<(&str, usize)> = met.into_iter().collect();
        names.sort_unstable();
        let mut renumber = vec![0; names.len()];
        for (sorted, &(_, first)) in names.iter().enumerate() {
            renumber[first] = sorted;
        }
        let (nk, nt) = (names.len(), sorted_times.len());
        let dense = nk.saturating_mul(nt) <= 4 * times.len() + 1024;
        let mut store = if dense { Store::Dense(vec![f64::NAN; nk * nt]) } else { Store::Sparse(HashMap::new()) };
        let mut totals = vec![0.0; nk];
        let mut last_time = (i64::MIN, 0);
        for ((&t, &k), &v) in times.iter().zip(&row_keys).zip(values) {
            let ti = if t == last_time.0 {
                last_time.1
            } else {
                let Ok(ti) = sorted_times.binary_search(&t) else { continue };
                last_time = (t, ti);
                ti
            };
            let ki = renumber[k];
            match &mut store {
                Store::Dense(cells) => {
                    let cell = &mut cells[ki * nt + ti];
                    *cell = if cell.is_nan() { v } else { *cell + v };
                }
                Store::Sparse(map) => *map.entry((ki, ti)).or_insert(0.0) += v,
            }
            totals[ki] += v;
        }
        Grid {
            key_index: names.iter().enumerate().map(|(i, (k, _))| (k.to_string(), i)).collect(),
            keys: names.iter().map(|(k, _)| k.to_string()).collect(),
            times: sorted_times,
            values: store,
            totals,
        }
    }

    fn get(&self, key: &str, time: i64) -> Option<f64> {
        let ki = *self.key_index.get(key)?;
        let ti = self.times.binary_search(&time).ok()?;
        match &self.values {
            Store::Dense(cells) => cells.get(ki * self.times.len() + ti).copied().filter(|v| !v.is_nan()),
            Store::Sparse(map) => map.get(&(ki, ti)).copied(),
        }
    }

    fn total(&self, key: &str) -> f64 {
        self.key_index.get(key).map_or(0.0, |&i| self.totals[i])
    }

    /// The users to draw one by one, and the others.
    fn top_users(&self) -> (Vec<String>, Vec<String>) {
        top_keys(&self.keys, |k| self.total(k), MAX_USERS)
    }
}

/// Usage stacked by user; `cycles` adds the pool's size.
pub fn usage_by_user(users: &Table, cycles: Option<&Table>) -> Result<Chart, ReportError> {
    let times = ints(users, "time")?;
    let grid = Grid::new(times, strs(users, "user")?, floats(users, "usage")?);
    let unit = time_unit(times);
    let mut chart =
        Chart::new("usage_by_user", "Usage by user", &format!("time ({})", unit.name), "weighted slots in use");
    let times = thin(&grid.times, MAX_POINTS);
    let (top, rest) = grid.top_users();
    let mut layers: Vec<(String, Vec<String>, String)> =
        top.iter().enumerate().map(|(i, u)| (u.clone(), vec![u.clone()], colour(i))).collect();
    if !rest.is_empty() {
        layers.push((format!("{} other users", rest.len()), rest, "#bbbbbb".to_string()));
    }
    let mut lower = vec![0.0; times.len()];
    for (name, members, colour) in layers {
        let upper: Vec<f64> = times
            .iter()
            .zip(&lower)
            .map(|(&t, l)| l + members.iter().map(|m| grid.get(m, t).unwrap_or(0.0)).sum::<f64>())
            .collect();
        let points = times.iter().zip(&upper).map(|(&t, &u)| (t as f64 / unit.seconds, u)).collect();
        chart.series.push(Series { name, points, style: Style::Area { lower: lower.clone() }, colour });
        lower = upper;
    }
    if let Some(cycles) = cycles {
        let t = ints(cycles, "time")?;
        let total = floats(cycles, "total_slots")?;
        if !t.is_empty() {
            let points: Vec<(f64, f64)> = t.iter().zip(total).map(|(&t, &v)| (t as f64 / unit.seconds, v)).collect();
            chart.series.push(Series {
                name: "pool (total slots)".into(),
                points: thin(&points, MAX_POINTS),
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
            let points = thin(&grid.times, MAX_POINTS)
                .iter()
                .filter_map(|&t| grid.get(group, t).map(|v| (t as f64 / unit.seconds, v)))
                .collect();
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
    // The same users as the usage chart.
    let (top, _) = Grid::new(times, strs(users, "user")?, floats(users, "usage")?).top_users();
    let sampled = thin(&grid.times, MAX_POINTS);
    for (i, user) in top.iter().enumerate() {
        let points = sampled.iter().filter_map(|&t| grid.get(user, t).map(|v| (t as f64 / unit.seconds, v))).collect();
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
        match per_user.get_mut(u.as_str()) {
            Some(v) => v.push(w as f64),
            None => {
                per_user.insert(u.clone(), vec![w as f64]);
            }
        }
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
    let cdf = |values: &[f64]| cdf_points(values, unit);
    let names: Vec<String> = per_user.keys().cloned().collect();
    let (top, _) = top_keys(&names, |u| per_user.get(u).map_or(0.0, |v| v.len() as f64), MAX_USERS);
    for (i, user) in top.iter().enumerate() {
        let values = per_user.get(user).map(Vec::as_slice).unwrap_or(&[]);
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

/// The points of the cumulative distribution of `values` (seconds) in
/// `unit`: a step per distinct value, or the 1,000 quantiles of more than
/// 1,000 values.
pub(crate) fn cdf_points(values: &[f64], unit: TimeUnit) -> Vec<(f64, f64)> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    if v.len() > MAX_POINTS {
        // Quantiles: the wait below which k / MAX_POINTS of the jobs are.
        let mut points = vec![(0.0, 0.0)];
        for k in 1..=MAX_POINTS {
            let i = (k * v.len()).div_ceil(MAX_POINTS) - 1;
            points.push((v[i] / unit.seconds, k as f64 / MAX_POINTS as f64));
        }
        return points;
    }
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
}

/// The waits of all jobs, seconds.
pub(crate) fn all_waits(jobs: &Table) -> Result<Vec<f64>, ReportError> {
    Ok(ints(jobs, "wait")?.iter().map(|&w| w as f64).collect())
}

/// Busy over total slots per cycle, times in `unit` (at most
/// [`MAX_POINTS`]).
pub(crate) fn utilisation_points(cycles: &Table, unit: TimeUnit) -> Result<Vec<(f64, f64)>, ReportError> {
    let times = ints(cycles, "time")?;
    let busy = floats(cycles, "busy_slots")?;
    let total = floats(cycles, "total_slots")?;
    let points: Vec<(f64, f64)> = times
        .iter()
        .zip(busy.iter().zip(total))
        .map(|(&t, (&b, &n))| (t as f64 / unit.seconds, if n > 0.0 { b / n } else { 0.0 }))
        .collect();
    Ok(thin(&points, MAX_POINTS))
}

/// The unit for the `time` column of `table`.
pub(crate) fn table_time_unit(table: &Table) -> Result<TimeUnit, ReportError> {
    Ok(time_unit(ints(table, "time")?))
}

/// Busy over total slots, cycle by cycle (0 when the pool is empty).
pub fn utilisation(cycles: &Table) -> Result<Chart, ReportError> {
    let unit = table_time_unit(cycles)?;
    let mut chart = Chart::new("utilisation", "Utilisation", &format!("time ({})", unit.name), "busy / total slots");
    chart.series.push(Series {
        name: "utilisation".into(),
        points: utilisation_points(cycles, unit)?,
        style: Style::Line,
        colour: colour(2),
    });
    chart.fit();
    chart.y_range = (0.0, 1.0);
    Ok(chart)
}
