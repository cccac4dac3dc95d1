//! The report of a simulated run: charts (SVG and PNG) and one
//! self-contained HTML page (inline SVG, inline style, no script, nothing
//! fetched from the network), built from the result tables (`users`,
//! `groups`, `cycles`, `jobs`; whichever are present).
//!
//! * [`figures`]: the charts, from the tables;
//! * [`summary`]: the per-user summary table;
//! * [`compare`]: the differences between two runs of one workload;
//! * [`svg`], [`png`]: the two renderers of a [`chart::Chart`];
//! * [`worked_examples`]: the manual's worked examples on user priorities
//!   and group quotas, computed by the matchmaker's own code.
//!
//! The same tables always give the same bytes: nothing reads the clock.
//!
//! ```
//! use negotiator_sim::report::build;
//! use negotiator_sim::table::{Column, Table};
//!
//! let mut cycles = Table::new("cycles");
//! cycles.push("time", Column::Int(vec![0, 60, 120]));
//! cycles.push("busy_slots", Column::Float(vec![5.0, 10.0, 10.0]));
//! cycles.push("total_slots", Column::Float(vec![10.0, 10.0, 10.0]));
//! let report = build("run", &[cycles])?;
//! assert_eq!(report.charts.len(), 1);
//! let html = report.html();
//! assert!(html.contains("<svg") && !html.contains("<script"));
//! assert!(html.contains("<td>mean utilisation</td><td>83.3 %</td>"), "{html}");
//! # Ok::<(), negotiator_sim::report::ReportError>(())
//! ```

pub mod chart;
mod columns;
pub mod compare;
pub mod figures;
mod html;
#[cfg_attr(not(feature = "png"), path = "png_absent.rs")]
pub mod png;
pub mod stats;
pub mod summary;
pub mod svg;
pub mod worked_examples;

use std::path::{Path, PathBuf};

use crate::output::OutputError;
use crate::table::Table;
use chart::Chart;
use columns::{find, floats, ints};

/// What can go wrong making a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A table lacks a column the report needs.
    #[error("table {table}: {message}")]
    Table {
        /// The table's name.
        table: String,
        /// What is wrong.
        message: String,
    },
    /// None of the four result tables was given.
    #[error("no result table (users, groups, cycles or jobs) to report on")]
    NoTables,
    /// A results directory holds none of the four result tables.
    #[error(
        "{}: no result table to report on (users, groups, cycles or jobs, each as NAME.csv or NAME.parquet)",
        dir.display()
    )]
    NoTablesIn {
        /// The directory.
        dir: PathBuf,
    },
    /// A file could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// Drawing or encoding a PNG failed.
    #[error("PNG: {0}")]
    Png(String),
    /// A worked example could not be computed.
    #[error("worked example: {0}")]
    Example(String),
    /// Reading the tables failed.
    #[error(transparent)]
    Output(#[from] OutputError),
}

/// A report: its charts, the per-user summary and a few facts of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The title of the page.
    pub title: String,
    /// Facts of the run (name, value), shown first.
    pub facts: Vec<(String, String)>,
    /// The per-user summary ([`summary::summary`]), when `jobs` is given.
    pub summary: Option<Table>,
    /// The charts, in the page's order.
    pub charts: Vec<Chart>,
    /// The comparison with another run, if any (shown after the summary;
    /// [`Report::add_comparison`]).
    pub comparison: Option<compare::Comparison>,
}

/// Builds the report of the tables (any of `users`, `groups`, `cycles`,
/// `jobs`; others are ignored).
pub fn build(title: &str, tables: &[Table]) -> Result<Report, ReportError> {
    let users = find(tables, "users");
    let groups = find(tables, "groups");
    let cycles = find(tables, "cycles");
    let jobs = find(tables, "jobs");
    if users.is_none() && groups.is_none() && cycles.is_none() && jobs.is_none() {
        return Err(ReportError::NoTables);
    }
    for table in [users, groups, cycles, jobs].into_iter().flatten() {
        columns::check_lengths(table)?;
    }
    let mut charts = Vec::new();
    let mut facts = Vec::new();
    if let Some(users) = users {
        charts.push(figures::usage_by_user(users, cycles)?);
    }
    if let Some(groups) = groups {
        charts.extend(figures::usage_by_group(groups)?);
    }
    if let Some(users) = users {
        charts.push(figures::priorities(users, "rup")?);
        charts.push(figures::priorities(users, "eup")?);
    }
    if let Some(cycles) = cycles {
        charts.push(figures::utilisation(cycles)?);
        let times = ints(cycles, "time")?;
        facts.push(("cycles".to_string(), times.len().to_string()));
        if let (Some(first), Some(last)) = (times.iter().min(), times.iter().max()) {
            facts.push(("simulated time".to_string(), duration(last - first)));
        }
        let busy = floats(cycles, "busy_slots")?;
        let total = floats(cycles, "total_slots")?;
        facts.push(("mean utilisation".to_string(), format!("{:.1} %", 100.0 * mean_utilisation(busy, total))));
        // (vacates and kills: by the startds, when they act on running jobs)
        for column in ["matches", "preemptions", "vacates", "kills"] {
            if let Ok(v) = ints(cycles, column) {
                facts.push((column.to_string(), v.iter().sum::<i64>().to_string()));
            }
        }
    }
    let mut summary = None;
    if let Some(jobs) = jobs {
        charts.push(figures::wait_histogram(jobs)?);
        charts.push(figures::wait_cdf(jobs)?);
        let s = summary::summary(users, jobs)?;
        facts.push(("jobs".to_string(), ints(jobs, "wait")?.len().to_string()));
        if let Ok(suspended) = ints(jobs, "suspended") {
            facts.push(("time suspended".to_string(), duration(suspended.iter().sum())));
        }
        summary = Some(s);
    }
    Ok(Report { title: title.to_string(), facts, summary, charts, comparison: None })
}

/// The mean over cycles of busy over total slots (cycles without slots
/// count as 0).
pub fn mean_utilisation(busy: &[f64], total: &[f64]) -> f64 {
    let per_cycle: Vec<f64> = busy.iter().zip(total).map(|(&b, &t)| if t > 0.0 { b / t } else { 0.0 }).collect();
    stats::mean(&per_cycle)
}

/// Seconds as `1d 02:03:04` (or `02:03:04` under a day).
///
/// ```
/// assert_eq!(negotiator_sim::report::duration(93_784), "1d 02:03:04");
/// assert_eq!(negotiator_sim::report::duration(59), "00:00:59");
/// ```
pub fn duration(seconds: i64) -> String {
    let (d, rest) = (seconds / 86_400, seconds % 86_400);
    let hms = format!("{:02}:{:02}:{:02}", rest / 3600, rest % 3600 / 60, rest % 60);
    if d > 0 {
        format!("{d}d {hms}")
    } else {
        hms
    }
}

/// Which images [`Report::write`] writes beside the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Images {
    /// `charts/ID.svg` for every chart.
    pub svg: bool,
    /// `charts/ID.png` for every chart.
    pub png: bool,
}

impl Report {
    /// Adds the comparison of this run (A, `a`) with run B (`b`): its
    /// table and the charts of [`compare::charts`].
    pub fn add_comparison(&mut self, a: &[Table], b: &[Table]) -> Result<(), ReportError> {
        self.comparison = Some(compare::compare(a, b)?);
        self.charts.extend(compare::charts(a, b)?);
        Ok(())
    }

    /// The page as one self-contained HTML document.
    pub fn html(&self) -> String {
        html::page(self)
    }

    /// Writes `report.html` and the chosen images of every chart under
    /// `dir` (created if missing); returns the paths written.
    pub fn write(&self, dir: &Path, images: Images) -> Result<Vec<PathBuf>, ReportError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ReportError::Io { path, source }
        };
        let charts_dir = dir.join("charts");
        std::fs::create_dir_all(&charts_dir).map_err(io(&charts_dir))?;
        let mut written = Vec::new();
        let page = dir.join("report.html");
        std::fs::write(&page, self.html()).map_err(io(&page))?;
        written.push(page);
        for chart in &self.charts {
            if images.svg {
                let path = charts_dir.join(format!("{}.svg", chart.id));
                std::fs::write(&path, svg::render(chart)).map_err(io(&path))?;
                written.push(path);
            }
            if images.png {
                let path = charts_dir.join(format!("{}.png", chart.id));
                std::fs::write(&path, png::render(chart)?).map_err(io(&path))?;
                written.push(path);
            }
        }
        Ok(written)
    }
}
