//! The report's HTML page.

use std::fmt::Write;

use super::svg::{escape, render};
use super::{duration, Report};
use crate::table::Column;

const STYLE: &str = "body{font-family:'DejaVu Sans',Verdana,sans-serif;max-width:820px;margin:2em auto;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\
td:first-child,th:first-child{text-align:left}th{background:#f2f2f2}figure{margin:1.5em 0}svg{max-width:100%;height:auto}";

/// The page of `report`.
pub fn page(report: &Report) -> String {
    let mut s = String::new();
    let title = escape(&report.title);
    let _ = writeln!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>"
    );
    if !report.facts.is_empty() {
        s.push_str("<table class=\"facts\">\n");
        for (name, value) in &report.facts {
            let _ = writeln!(s, "<tr><td>{}</td><td>{}</td></tr>", escape(name), escape(value));
        }
        s.push_str("</table>\n");
    }
    if let Some(summary) = &report.summary {
        s.push_str("<h2>Users</h2>\n<table class=\"summary\">\n<tr><th>user</th><th>group</th><th>jobs</th><th>started</th><th>mean wait</th><th>p95 wait</th><th>usage share</th></tr>\n");
        let get = |name: &str| summary.column(name);
        if let (
            Some(Column::Str(user)),
            Some(Column::Str(group)),
            Some(Column::Int(jobs)),
            Some(Column::Int(started)),
            Some(Column::Float(mean)),
            Some(Column::Float(p95)),
            Some(Column::Float(share)),
        ) = (
            get("user"),
            get("group"),
            get("jobs"),
            get("started"),
            get("mean_wait"),
            get("p95_wait"),
            get("usage_share"),
        ) {
            for i in 0..user.len() {
                let _ = writeln!(
                    s,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1} %</td></tr>",
                    escape(&user[i]),
                    escape(&group[i]),
                    jobs[i],
                    started[i],
                    duration(mean[i].round() as i64),
                    duration(p95[i].round() as i64),
                    100.0 * share[i]
                );
            }
        }
        s.push_str("</table>\n<p>Wait: from submission to start (to the end of the run for a job that never started); p95: the 95th percentile (nearest rank). Usage share: the user's weighted slot-seconds over all users'.</p>\n");
    }
    if !report.charts.is_empty() {
        s.push_str("<h2>Charts</h2>\n");
    }
    for chart in &report.charts {
        let _ = writeln!(s, "<figure id=\"{}\">\n{}</figure>", escape(&chart.id), render(chart));
    }
    s.push_str("</body>\n</html>\n");
    s
}
