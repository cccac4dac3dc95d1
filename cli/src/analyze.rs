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
        print!("{}", report.report(&job));
    }
    ExitCode::SUCCESS
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
