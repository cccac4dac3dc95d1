//! `classad analyze`: why a job does not match, as `condor_q -analyze`
//! explains it.

use std::path::Path;
use std::process::ExitCode;

use classad::analysis::{analyze, Analysis};
use classad::{ClassAd, EvalOptions, Semantics};

use crate::{fail, input};

pub fn run(semantics: Semantics, job: &Path, machines: &Path, json: bool) -> ExitCode {
    let job = match input::first_ad(job) {
        Ok(ad) => ad,
        Err(message) => return fail(&message),
    };
    let source = match input::Input::open(Some(machines)) {
        Ok(source) => source,
        Err(message) => return fail(&message),
    };
    let name = source.name.clone();
    let ads: Vec<ClassAd> = match source.ads(None).collect::<Result<_, _>>() {
        Ok(ads) => ads,
        Err(err) => {
            eprintln!("classad: {name}: {err}");
            return ExitCode::from(1);
        }
    };
    let options = EvalOptions::new().semantics(semantics);
    let report = analyze(&options, &job, &ads);
    if json {
        println!("{}", to_json(&report));
    } else {
        print!("{}", to_text(&job, &report));
    }
    ExitCode::SUCCESS
}

/// `n thing` or `n things`.
fn count(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// The report for a person, laid out after `condor_q -analyze`.
fn to_text(job: &ClassAd, report: &Analysis) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let id = match (job.eval_attr("ClusterId").as_f64(), job.eval_attr("ProcId").as_f64()) {
        (Some(c), Some(p)) => format!("Job {c}.{p:03}"),
        _ => "The job".to_owned(),
    };
    let _ = writeln!(out, "{id}: run analysis summary. Of {},", count(report.machines, "machine"));
    let width = report.machines.to_string().len();
    let _ = writeln!(out, "  {:>width$} are rejected by your job's requirements", report.rejected_by_job);
    let _ = writeln!(out, "  {:>width$} reject your job because of their own requirements", report.rejected_by_machine);
    let _ = writeln!(out, "  {:>width$} match and are available to run your job", report.matching);
    match &report.requirements {
        None => {
            let _ = writeln!(out, "\nThe job has no Requirements expression, so no machine can match it.");
        }
        Some(requirements) => {
            let _ = writeln!(out, "\nThe Requirements expression for your job is:\n\n    {requirements}\n");
            let shown: Vec<String> = report.conditions.iter().map(|c| c.flattened.to_string()).collect();
            let cond_width = shown.iter().map(String::len).max().unwrap_or(0).max("Condition".len());
            let _ = writeln!(out, "    {:<cond_width$}  Machines Matched  Suggestion", "Condition");
            let _ = writeln!(out, "    {:<cond_width$}  ----------------  ----------", "---------");
            for (i, (condition, text)) in report.conditions.iter().zip(&shown).enumerate() {
                let suggestion = report
                    .suggestions
                    .iter()
                    .find(|s| s.position == condition.position)
                    .map(|s| match &s.replacement {
                        Some(replacement) => format!("MODIFY TO {replacement}"),
                        None => "REMOVE".to_owned(),
                    })
                    .unwrap_or_default();
                let _ = writeln!(out, "{:<3} {text:<cond_width$}  {:>16}  {suggestion}", i + 1, condition.satisfied);
            }
        }
    }
    if !report.missing_from_job.is_empty() {
        let _ = writeln!(out, "\nThe following attributes are missing from the job ClassAd:\n");
        let mut missing: Vec<_> = report.missing_from_job.iter().collect();
        missing.sort_by_key(|m| (!m.by_job, std::cmp::Reverse(m.by_machines)));
        for missing in missing {
            let mut by = Vec::new();
            if missing.by_job {
                by.push("the job's Requirements".to_owned());
            }
            if missing.by_machines > 0 {
                by.push(format!("the Requirements of {}", count(missing.by_machines, "machine")));
            }
            let _ = writeln!(out, "    {} (referred to by {})", missing.name, by.join(" and "));
        }
    }
    if !report.suggestions.is_empty() {
        let _ = writeln!(out, "\nSuggestions:\n");
        for s in &report.suggestions {
            let more = count(s.more_matches, "more machine");
            let _ = match &s.replacement {
                Some(replacement) => {
                    writeln!(out, "    Changing {} to {replacement} would let {more} match.", s.condition)
                }
                None => writeln!(out, "    Removing {} would let {more} match.", s.condition),
            };
        }
    }
    out
}

/// The report as one JSON object (see `docs/analysis.md`).
fn to_json(report: &Analysis) -> String {
    use serde_json::json;
    let conditions: Vec<_> = report
        .conditions
        .iter()
        .map(|c| {
            json!({
                "position": c.position,
                "condition": c.expr.to_string(),
                "flattened": c.flattened.to_string(),
                "machines_matched": c.satisfied,
            })
        })
        .collect();
    let missing: Vec<_> = report
        .missing_from_job
        .iter()
        .map(|m| json!({ "name": m.name, "by_job": m.by_job, "by_machines": m.by_machines }))
        .collect();
    let suggestions: Vec<_> = report
        .suggestions
        .iter()
        .map(|s| {
            json!({
                "position": s.position,
                "condition": s.condition.to_string(),
                "replacement": s.replacement.as_ref().map(ToString::to_string),
                "more_matches": s.more_matches,
            })
        })
        .collect();
    json!({
        "machines": report.machines,
        "rejected_by_job": report.rejected_by_job,
        "rejected_by_machine": report.rejected_by_machine,
        "matching": report.matching,
        "requirements": report.requirements.as_ref().map(ToString::to_string),
        "conditions": conditions,
        "missing_from_job": missing,
        "suggestions": suggestions,
    })
    .to_string()
}
