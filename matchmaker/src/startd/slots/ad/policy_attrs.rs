//! The policy part of a slot's ad, read from the configuration: `Start`,
//! `Requirements`, `WithinResourceLimits`, `Rank`, `SlotWeight`,
//! `MachineMaxVacateTime`, the consumption policies and `STARTD_ATTRS`.

use classad::Expr;

use crate::config::Config;
use crate::startd::slots::layout::{type_bool, type_param, SlotKind, SlotResources};
use crate::startd::slots::resources::MachineTotals;
use crate::startd::slots::slot_config::{Policies, PolicyStep, SlotPolicy};

/// `WithinResourceLimits` without a consumption policy; `full` is the
/// `STARTD_JOB_HAS_REQUEST_ATTRS` form, which prefers the schedd's
/// `_condor_Request*` values and tolerates jobs without requests.
fn within_resource_limits(custom: &[String], full: bool) -> String {
    let mut s = if full {
        let one = |r: &str, none: &str| {
            format!(
                "ifThenElse(TARGET._condor_Request{r} =!= UNDEFINED,MY.{r} > 0 && TARGET._condor_Request{r} <= MY.{r},\
                 ifThenElse(TARGET.Request{r} =!= UNDEFINED,MY.{r} > 0 && TARGET.Request{r} <= MY.{r},{none}))"
            )
        };
        format!("({} && {} && {}", one("Cpus", "1 <= MY.Cpus"), one("Memory", "FALSE"), one("Disk", "FALSE"))
    } else {
        String::from(
            "(MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk",
        )
    };
    for r in custom {
        if full {
            s.push_str(&format!(
                " && (TARGET.Request{r} is UNDEFINED ||MY.{r} >= ifThenElse(TARGET._condor_Request{r} is UNDEFINED,TARGET.Request{r},TARGET._condor_Request{r}))"
            ));
        } else {
            s.push_str(&format!(" && (TARGET.Request{r} is UNDEFINED || MY.{r} >= TARGET.Request{r})"));
        }
    }
    s.push(')');
    s
}

/// `WithinResourceLimits` of a slot with a consumption policy.
fn within_resource_limits_cp(custom: &[String]) -> String {
    let mut assets: Vec<String> = ["Cpus", "Memory", "Disk"].iter().map(|s| s.to_string()).collect();
    for r in custom {
        if !assets.iter().any(|a| a.eq_ignore_ascii_case(r)) {
            assets.push(r.clone());
        }
    }
    assets.sort_by_key(|a| a.to_ascii_lowercase());
    let parts: Vec<String> = assets
        .iter()
        .map(|a| {
            format!("ifThenElse(TARGET._cp_orig_Request{a} isnt UNDEFINED, TARGET.Request{a} <= MY.{a}, MY.Consumption{a} <= MY.{a})")
        })
        .collect();
    format!("({})", parts.join(" && "))
}

fn expr_or(text: &str, warnings: &mut Vec<String>, what: &str) -> Option<Expr> {
    match classad::parse_expr(text) {
        Ok(e) => Some(e),
        Err(e) => {
            warnings.push(format!("{what}: can't insert '{text}' into the slot ad: {e}"));
            None
        }
    }
}

/// The policy part of the ad of `slot` (see [`SlotPolicy`]), read from
/// `config`.
pub(crate) fn read_policy(
    config: &Config,
    totals: &MachineTotals,
    policies: &Policies,
    slot: &SlotResources,
) -> SlotPolicy {
    let custom: Vec<String> = totals.custom.iter().map(|c| c.name.clone()).collect();
    let mut steps = Vec::new();
    let mut warnings = Vec::new();
    let start = type_param(config, slot.type_id, "START").unwrap_or_else(|| "true".into());
    if let Some(e) = expr_or(&start, &mut warnings, "START") {
        steps.push(PolicyStep::Insert("Start".into(), e));
    }
    let requirements = if slot.kind == SlotKind::Static { "START" } else { "START && (WithinResourceLimits)" };
    if let Some(e) = expr_or(requirements, &mut warnings, "Requirements") {
        steps.push(PolicyStep::Insert("Requirements".into(), e));
    }
    let cp = policies.has_consumption_policy(config, slot);
    if slot.kind != SlotKind::Static {
        let wrl = match type_param(config, slot.type_id, "WithinResourceLimits") {
            Some(v) if !v.trim().is_empty() => v,
            _ if cp => within_resource_limits_cp(&custom),
            _ => {
                within_resource_limits(&custom, type_bool(config, slot.type_id, "STARTD_JOB_HAS_REQUEST_ATTRS", false))
            }
        };
        if let Some(e) = expr_or(&wrl, &mut warnings, "WithinResourceLimits") {
            steps.push(PolicyStep::Insert("WithinResourceLimits".into(), e));
        }
    }
    match type_param(config, slot.type_id, "RANK").filter(|r| !r.trim().is_empty()) {
        Some(r) => {
            if let Some(e) = expr_or(&r, &mut warnings, "RANK") {
                steps.push(PolicyStep::Insert("Rank".into(), e));
            }
        }
        None => {
            steps.push(PolicyStep::Insert("Rank".into(), 0.0.into()));
        }
    }
    let weight = type_param(config, slot.type_id, "SLOT_WEIGHT")
        .filter(|w| !w.trim().is_empty())
        .unwrap_or_else(|| "Cpus".into());
    if let Some(e) = expr_or(&weight, &mut warnings, "SLOT_WEIGHT") {
        steps.push(PolicyStep::Insert("SlotWeight".into(), e));
    }
    if let Some(v) = type_param(config, slot.type_id, "MACHINE_MAX_VACATE_TIME").filter(|v| !v.trim().is_empty()) {
        if let Some(e) = expr_or(&v, &mut warnings, "MACHINE_MAX_VACATE_TIME") {
            steps.push(PolicyStep::Insert("MachineMaxVacateTime".into(), e));
        }
    }
    if cp {
        for asset in totals.machine_resources().split_whitespace() {
            if asset.eq_ignore_ascii_case("swap") {
                continue;
            }
            let text = type_param(config, slot.type_id, &format!("CONSUMPTION_{asset}"))
                .filter(|v| !v.trim().is_empty())
                .unwrap_or_else(|| {
                    format!("ifthenelse(target.Request{asset} =?= undefined, 0, target.Request{asset})")
                });
            if let Some(e) = expr_or(&text, &mut warnings, &format!("CONSUMPTION_{asset}")) {
                steps.push(PolicyStep::Insert(format!("Consumption{asset}"), e));
            }
        }
        if slot.kind == SlotKind::Partitionable {
            let claims = type_param(config, slot.type_id, "NUM_CLAIMS").and_then(|v| v.trim().parse::<i64>().ok());
            steps.push(PolicyStep::NumClaims(claims));
        }
    }

    // STARTD_ATTRS, SLOT<N>_STARTD_ATTRS, SYSTEM_STARTD_ATTRS.
    let slot_prefix = format!("SLOT{}", slot.id);
    let mut attrs: Vec<String> = Vec::new();
    for list in [
        type_param(config, slot.type_id, "STARTD_ATTRS"),
        config.lookup(&format!("{slot_prefix}_STARTD_ATTRS")).map(|l| l.value),
        type_param(config, slot.type_id, "SYSTEM_STARTD_ATTRS"),
    ]
    .into_iter()
    .flatten()
    {
        attrs.extend(list.split([',', ' ', '\t', '\n']).filter(|s| !s.is_empty()).map(str::to_string));
    }
    for attr in attrs {
        let value = config
            .lookup(&format!("{slot_prefix}_{attr}"))
            .map(|l| l.value)
            .or_else(|| type_param(config, slot.type_id, &attr));
        let Some(value) = value else { continue };
        if value.trim().is_empty() {
            steps.push(PolicyStep::Remove(attr.clone()));
            continue;
        }
        if let Some(e) = expr_or(value.trim(), &mut warnings, &attr) {
            steps.push(PolicyStep::Insert(attr, e));
        }
    }
    SlotPolicy { steps, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;
    use classad::{ClassAd, Value};

    #[test]
    fn within_resource_limits_forms_parse_and_judge_jobs() {
        let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
        let slot: ClassAd = "[ Cpus = 2; Memory = 1000; Disk = 500; GPUs = 1 ]".parse().expect("slot");
        for full in [false, true] {
            let text = within_resource_limits(&["GPUs".to_string()], full);
            let expr = classad::parse_expr(&text).expect("parses");
            for (job, fits) in [
                ("[ RequestCpus = 2; RequestMemory = 1000; RequestDisk = 500 ]", true),
                ("[ RequestCpus = 3; RequestMemory = 1000; RequestDisk = 500 ]", false),
                ("[ RequestCpus = 1; RequestMemory = 10; RequestDisk = 5; RequestGPUs = 2 ]", false),
                ("[ RequestCpus = 9; _condor_RequestCpus = 1; RequestMemory = 10; RequestDisk = 5 ]", full),
            ] {
                let job: ClassAd = job.parse().expect("job");
                let v = classad::EvalContext::new(&opts).my(&slot).target(&job).eval(&expr);
                assert_eq!(v, Value::Bool(fits), "{job} full={full}");
            }
        }
    }
}
