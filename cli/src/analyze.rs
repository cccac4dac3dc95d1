//! `classad analyze`: why a job does not match, as `condor_q -analyze`
//! explains it.

use std::path::Path;
use std::process::ExitCode;

use classad::analysis::{analyze, machine_conditions, Analysis};
use classad::{ClassAd, EvalContext, EvalOptions, Semantics, Value};

use crate::{fail, input};

/// A slot's name and its `Requirements`' conditions with their values.
type Slot = (String, Vec<(String, Value)>);

/// Analyses the job of `job` against the machine ads of `machines` (only
/// the slots or machines named `machine`, when given).
pub fn run(semantics: Semantics, job: &Path, machines: &Path, machine: Option<&str>, json: bool) -> ExitCode {
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
    let ads = match machine {
        None => ads,
        Some(wanted) => {
            let named = |ad: &ClassAd, attr: &str| {
                EvalContext::new(&options)
                    .my(ad)
                    .eval_attr(attr)
                    .as_str()
                    .is_some_and(|n| n.eq_ignore_ascii_case(wanted))
            };
            let chosen: Vec<ClassAd> = ads.into_iter().filter(|ad| named(ad, "Name") || named(ad, "Machine")).collect();
            if chosen.is_empty() {
                eprintln!("classad: {name}: no ad has Name or Machine {wanted:?}");
                return ExitCode::from(1);
            }
            chosen
        }
    };
    let report = analyze(&options, &job, &ads);
    // With --machine, each slot's own conditions and their values.
    let slots: Vec<Slot> = match machine {
        None => Vec::new(),
        Some(_) => ads
            .iter()
            .filter(|ad| report.machines == ads.len() || is_machine(&options, ad))
            .map(|ad| {
                let slot = EvalContext::new(&options).my(ad).eval_attr("Name");
                let slot = slot.as_str().map_or_else(|| "(no Name)".to_owned(), str::to_owned);
                let conditions =
                    machine_conditions(&options, &job, ad).into_iter().map(|(c, v)| (c.to_string(), v)).collect();
                (slot, conditions)
            })
            .collect(),
    };
    if json {
        println!("{}", to_json(&report, machine.map(|_| slots.as_slice())));
    } else {
        print!("{}", report.report(&job));
        for (slot, conditions) in &slots {
            print!("{}", slot_report(slot, conditions));
        }
    }
    ExitCode::SUCCESS
}

/// Whether `ad` is a machine ad (`MyType` "Machine").
fn is_machine(options: &EvalOptions, ad: &ClassAd) -> bool {
    EvalContext::new(options).my(ad).eval_attr("MyType").as_str().is_some_and(|t| t.eq_ignore_ascii_case("Machine"))
}

/// One slot's `Requirements`, condition by condition, with the value each
/// has for the job.
fn slot_report(slot: &str, conditions: &[(String, Value)]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "\nThe Requirements of slot {slot}, condition by condition, for your job:\n");
    if conditions.is_empty() {
        let _ = writeln!(out, "    (the slot has no Requirements, so it rejects every job)");
        return out;
    }
    let _ = writeln!(out, "    Value      Condition");
    let _ = writeln!(out, "    -----      ---------");
    for (condition, value) in conditions {
        let _ = writeln!(out, "    {:<9}  {condition}", value.to_string());
    }
    out
}

/// The report as one JSON object (see `docs/analysis.md`).
fn to_json(report: &Analysis, slots: Option<&[Slot]>) -> String {
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
    let machine_conditions: Vec<_> = report
        .machine_conditions
        .iter()
        .map(|c| json!({ "condition": c.expr.to_string(), "machines_rejecting": c.rejecting }))
        .collect();
    let slots = slots.map(|slots| {
        slots
            .iter()
            .map(|(name, conditions)| {
                let conditions: Vec<_> =
                    conditions.iter().map(|(c, v)| json!({ "condition": c, "value": v.to_string() })).collect();
                json!({ "name": name, "conditions": conditions })
            })
            .collect::<Vec<_>>()
    });
    json!({
        "machines": report.machines,
        "rejected_by_job": report.rejected_by_job,
        "rejected_by_machine": report.rejected_by_machine,
        "matching": report.matching,
        "requirements": report.requirements.as_ref().map(ToString::to_string),
        "conditions": conditions,
        "missing_from_job": missing,
        "suggestions": suggestions,
        "machine_conditions": machine_conditions,
        "slots": slots,
    })
    .to_string()
}
