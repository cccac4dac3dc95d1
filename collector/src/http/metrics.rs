//! `/metrics`: the collector's counters in Prometheus' text format 0.0.4.
//!
//! Names follow the project's convention, `htcondor_<daemon>_<what>`
//! with Prometheus units and suffixes:
//!
//! | name | type | labels |
//! |---|---|---|
//! | `htcondor_collector_ads` | gauge | `ad_type` (the table: `slot`, `schedd`, …; a generic table's `MyType`) |
//! | `htcondor_collector_updates_total` | counter | `command` (HTCondor's name), `result` (`stored`, `refused`) |
//! | `htcondor_collector_queries_total` | counter | `command`, `result` (`answered`, `refused`) |
//! | `htcondor_collector_invalidations_total` | counter | `command` |
//! | `htcondor_collector_query_duration_seconds` | histogram | |
//! | `htcondor_collector_ads_inserted_total`, `…_ads_expired_total`, `…_ads_invalidated_total`, `…_ads_sent_total` | counter | |
//! | `htcondor_collector_reply_bytes_total`, `…_housekeeping_runs_total` | counter | |
//! | `htcondor_cedar_connections_total` | counter | `result` (`accepted`, `refused`) |
//! | `htcondor_cedar_connections_active` | gauge | |
//! | `htcondor_cedar_connections_ended_total` | counter | `reason` (`timed_out`, `failed`) |
//! | `htcondor_cedar_commands_total` | counter | |
//! | `htcondor_cedar_sessions` | gauge | |
//! | `htcondor_collector_http_requests_total` | counter | `method`, `route` (the route's pattern, `/v1/ads/{type}/{name}`; `other` for none), `status` |
//!
//! The CEDAR server's counters are the protocol's, so they are
//! `htcondor_cedar_*` as the design names them, not `htcondor_collector_*`.
//! Counts of handshakes by method are not kept by the server yet, so there
//! is no `htcondor_cedar_handshakes_total`; expired ads are not counted
//! per table, so that counter has no `ad_type`.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::Ordering;

use cedar::tokio::ServerStats;
use daemon_http::prometheus::{cedar_server, counter, escape, head};
use daemon_http::HttpRequests;

use crate::server::Collector;
use crate::stats::{PerCommand, QUERY_SECONDS_BUCKETS};
use crate::Table;

fn command_name(command: Option<i32>) -> String {
    match command {
        Some(n) => cedar::command::name(n).map_or_else(|| format!("command_{n}"), str::to_owned),
        None => "other".to_owned(),
    }
}

fn per_command(out: &mut String, name: &str, sets: &[(&str, &PerCommand)]) {
    for (result, counts) in sets {
        for (command, n) in counts.nonzero() {
            let command = escape(&command_name(command));
            if result.is_empty() {
                let _ = writeln!(out, "{name}{{command=\"{command}\"}} {n}");
            } else {
                let _ = writeln!(out, "{name}{{command=\"{command}\",result=\"{result}\"}} {n}");
            }
        }
    }
}

fn table_label(table: &Table) -> String {
    match table {
        Table::Generic(name) => name.clone(),
        t => t.label().to_owned(),
    }
}

/// The metrics of `collector` (and of its CEDAR server, if given) in the
/// text format.
///
/// ```
/// let server = std::sync::Arc::new(cedar::handshake::ServerConfig::new(collector::server::Collector::commands()));
/// let c = collector::server::Collector::new(collector::config::CollectorConfig::new("h"), server, "<127.0.0.1:9618>");
/// let text = collector::http::render_metrics(&c, None);
/// assert!(text.contains("htcondor_collector_ads{ad_type=\"collector\"} 1\n"));
/// ```
pub fn render(collector: &Collector, cedar: Option<&ServerStats>) -> String {
    render_with(collector, cedar, None)
}

/// [`render`], with the HTTP server's own counters.
pub(crate) fn render_with(collector: &Collector, cedar: Option<&ServerStats>, http: Option<&HttpRequests>) -> String {
    let stats = collector.stats();
    let mut out = String::new();
    head(&mut out, "htcondor_collector_ads", "gauge", "Ads held, by table.");
    let mut by_label: BTreeMap<String, usize> = BTreeMap::new();
    for (table, n) in collector.store().counts() {
        *by_label.entry(table_label(&table)).or_default() += n;
    }
    for (label, n) in by_label {
        let _ = writeln!(out, "htcondor_collector_ads{{ad_type=\"{}\"}} {n}", escape(&label));
    }
    head(&mut out, "htcondor_collector_updates_total", "counter", "Update commands, by command and result.");
    per_command(
        &mut out,
        "htcondor_collector_updates_total",
        &[("stored", &stats.updates), ("refused", &stats.updates_failed)],
    );
    head(&mut out, "htcondor_collector_queries_total", "counter", "Query commands, by command and result.");
    per_command(
        &mut out,
        "htcondor_collector_queries_total",
        &[("answered", &stats.queries), ("refused", &stats.queries_failed)],
    );
    head(&mut out, "htcondor_collector_invalidations_total", "counter", "Invalidation commands, by command.");
    per_command(&mut out, "htcondor_collector_invalidations_total", &[("", &stats.invalidations)]);

    let name = "htcondor_collector_query_duration_seconds";
    head(&mut out, name, "histogram", "How long queries took to select their ads.");
    let cumulative = stats.query_seconds.cumulative();
    for (i, n) in cumulative.iter().enumerate() {
        match QUERY_SECONDS_BUCKETS.get(i) {
            Some(bound) => {
                let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {n}");
            }
            None => {
                let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {n}");
            }
        }
    }
    let sum = stats.query_seconds.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
    let _ = writeln!(out, "{name}_sum {sum}");
    let _ = writeln!(out, "{name}_count {}", cumulative.last().copied().unwrap_or(0));

    let load = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
    counter(
        &mut out,
        "htcondor_collector_ads_inserted_total",
        "Updates that added a new ad.",
        load(&stats.ads_inserted),
    );
    counter(
        &mut out,
        "htcondor_collector_ads_expired_total",
        "Ads removed past their lifetime.",
        load(&stats.ads_expired),
    );
    counter(
        &mut out,
        "htcondor_collector_ads_invalidated_total",
        "Ads removed by invalidations.",
        load(&stats.ads_invalidated),
    );
    counter(&mut out, "htcondor_collector_ads_sent_total", "Ads sent in query replies.", load(&stats.ads_sent));
    counter(
        &mut out,
        "htcondor_collector_reply_bytes_total",
        "Bytes of CEDAR query replies.",
        load(&stats.reply_bytes),
    );
    counter(
        &mut out,
        "htcondor_collector_housekeeping_runs_total",
        "Housekeeping passes run.",
        load(&stats.housekeeping_runs),
    );

    let sessions = collector.server_config().sessions.lock().map(|s| s.len()).unwrap_or(0);
    cedar_server(&mut out, cedar, sessions);
    if let Some(http) = http {
        http.render(&mut out);
    }
    out
}
