//! `/metrics`: the negotiator's status in Prometheus' text format 0.0.4.
//!
//! | name | type | labels |
//! |---|---|---|
//! | `htcondor_negotiator_cycles_total`, `…_cycle_failures_total` | counter | |
//! | `htcondor_negotiator_last_cycle_start_timestamp_seconds` | gauge | |
//! | `htcondor_negotiator_last_cycle_duration_seconds` | gauge | |
//! | `htcondor_negotiator_last_cycle_phase_duration_seconds` | gauge | `phase` (`fetch`, `prefetch`, `matching`, `deliver`) |
//! | `htcondor_negotiator_last_cycle_matches`, `…_rejections`, `…_slots`, `…_candidate_slots`, `…_schedds`, `…_requests`, `…_idle_jobs`, `…_jobs_considered`, `…_active_submitters`, `…_pies`, `…_pie_spins`, `…_failed_submitters` | gauge | |
//! | `htcondor_negotiator_last_cycle_submitter_matches`, `…_submitter_rejections` | gauge | `submitter` |
//! | `htcondor_negotiator_submitter_priority`, `…_submitter_priority_factor`, `…_submitter_resources_used`, `…_submitter_weighted_resources_used`, `…_submitter_accumulated_usage_seconds`, `…_submitter_weighted_accumulated_usage_seconds` | gauge | `submitter` (the accounting ads' `Name`: users and groups) |
//! | `htcondor_negotiator_group_quota`, `…_group_demand`, `…_group_allocated`, `…_group_usage` | gauge | `group` (with group quotas; from the last cycle) |
//!
//! The `htcondor_cedar_*` counters and `htcondor_negotiator_http_requests_total`
//! follow (see `daemon_http::prometheus`).

use std::fmt::Write;

use daemon_http::prometheus::{counter, escape, gauge, head};

use crate::status::Snapshot;

/// The metrics of a status snapshot.
///
/// ```
/// let text = negotiator::http::render_metrics(&Default::default());
/// assert!(text.contains("htcondor_negotiator_cycles_total 0\n"));
/// ```
pub fn render(s: &Snapshot) -> String {
    let mut out = String::new();
    counter(&mut out, "htcondor_negotiator_cycles_total", "Negotiation cycles run.", s.cycles);
    counter(
        &mut out,
        "htcondor_negotiator_cycle_failures_total",
        "Negotiation cycles that could not run.",
        s.failed_cycles,
    );
    if let Some(r) = s.last.as_deref() {
        let p = &r.phases;
        gauge(
            &mut out,
            "htcondor_negotiator_last_cycle_start_timestamp_seconds",
            "When the last cycle started.",
            r.started as f64,
        );
        gauge(
            &mut out,
            "htcondor_negotiator_last_cycle_duration_seconds",
            "How long the last cycle took.",
            r.duration().as_secs_f64(),
        );
        let name = "htcondor_negotiator_last_cycle_phase_duration_seconds";
        head(&mut out, name, "gauge", "How long each phase of the last cycle took.");
        for (phase, d) in
            [("fetch", p.fetch), ("prefetch", p.prefetch), ("matching", p.matching), ("deliver", p.deliver)]
        {
            let _ = writeln!(out, "{name}{{phase=\"{phase}\"}} {}", d.as_secs_f64());
        }
        let st = &r.outcome.stats;
        for (what, help, v) in [
            ("matches", "Matches sent to schedds in the last cycle.", r.matches_sent as f64),
            ("rejections", "Rejections sent to schedds in the last cycle.", r.rejections_sent as f64),
            ("slots", "Slot ads fetched in the last cycle.", r.slots as f64),
            ("candidate_slots", "Slots the last cycle could match.", st.candidate_slots as f64),
            ("schedds", "Schedds negotiated with in the last cycle.", r.schedds as f64),
            ("requests", "Resource requests fetched in the last cycle.", r.requests as f64),
            ("idle_jobs", "Idle jobs the submitters advertised in the last cycle.", st.idle_jobs as f64),
            ("jobs_considered", "Jobs the last cycle considered.", st.jobs_considered as f64),
            ("active_submitters", "Submitters with idle jobs in the last cycle.", st.active_submitters as f64),
            ("pies", "Pies the last cycle ran.", f64::from(st.pies)),
            ("pie_spins", "Pie spins of the last cycle.", f64::from(st.pie_spins)),
            ("failed_submitters", "Submitters whose schedd failed in the last cycle.", r.failures.len() as f64),
        ] {
            gauge(&mut out, &format!("htcondor_negotiator_last_cycle_{what}"), help, v);
        }
        let name = "htcondor_negotiator_last_cycle_submitter_matches";
        head(&mut out, name, "gauge", "Matches per submitter in the last cycle.");
        for sub in &r.outcome.submitters {
            let _ = writeln!(out, "{name}{{submitter=\"{}\"}} {}", escape(&sub.name), sub.matches);
        }
        let name = "htcondor_negotiator_last_cycle_submitter_rejections";
        head(&mut out, name, "gauge", "Rejections per submitter in the last cycle.");
        for sub in &r.outcome.submitters {
            let _ = writeln!(out, "{name}{{submitter=\"{}\"}} {}", escape(&sub.name), sub.rejections);
        }
        if !r.outcome.groups.is_empty() {
            for (what, help, get) in [
                (
                    "quota",
                    "Each group's quota in the last cycle.",
                    (|g| g.quota) as fn(&matchmaker::groups::GroupReport) -> f64,
                ),
                ("demand", "Each group's demand in the last cycle.", |g| g.demand),
                ("allocated", "Each group's allocation in the last cycle.", |g| g.allocated),
                ("usage", "Each group's usage after the last cycle.", |g| g.usage_after),
            ] {
                let name = format!("htcondor_negotiator_group_{what}");
                head(&mut out, &name, "gauge", help);
                for g in &r.outcome.groups {
                    let _ = writeln!(out, "{name}{{group=\"{}\"}} {}", escape(&g.name), get(g));
                }
            }
        }
    }
    for (what, attr, help) in [
        ("priority", "Priority", "Each submitter's real priority."),
        ("priority_factor", "PriorityFactor", "Each submitter's priority factor."),
        ("resources_used", "ResourcesUsed", "Slots each submitter holds."),
        ("weighted_resources_used", "WeightedResourcesUsed", "Slot weight each submitter holds."),
        ("accumulated_usage_seconds", "AccumulatedUsage", "Each submitter's accumulated usage."),
        (
            "weighted_accumulated_usage_seconds",
            "WeightedAccumulatedUsage",
            "Each submitter's weighted accumulated usage.",
        ),
    ] {
        let name = format!("htcondor_negotiator_submitter_{what}");
        head(&mut out, &name, "gauge", help);
        for ad in s.accounting.iter() {
            if let (Some(sub), Some(v)) = (ad.lookup_string("Name"), ad.lookup_float(attr)) {
                let _ = writeln!(out, "{name}{{submitter=\"{}\"}} {v}", escape(&sub));
            }
        }
    }
    out
}
