//! The ad a slot advertises: its resources and the machine's totals, its
//! identity (`Name`, `SlotID`, `SlotType`, ...), the policy expressions
//! (`Start`, `Requirements`, `WithinResourceLimits`, `Rank`, `SlotWeight`,
//! consumption policies), the host's attributes and `STARTD_ATTRS`.
//!
//! What is published, by slot kind (as HTCondor 23.9 does):
//! - every slot: `Cpus`, `Memory`, `Disk`, `VirtualMemory` and each custom
//!   resource with its `TotalSlot<Res>` and, for resources with device ids,
//!   `Assigned<Res>`; the machine's `TotalCpus` (a real), `TotalMemory`,
//!   `TotalDisk`, `Total<Res>`, `TotalSlots`, `MachineResources`;
//!   `Requirements = START` for a static slot, `START &&
//!   (WithinResourceLimits)` for the others;
//! - a partitionable slot: `PartitionableSlot`, what is left of its
//!   resources, `NumDynamicSlots` and the `Child<Attr>` lists of its
//!   dynamic slots;
//! - a dynamic slot: `DynamicSlot`, `ParentSlotId`, `DSlotId`,
//!   `PslotRollupInformation`, and the claim (`State = "Claimed"`,
//!   `RemoteUser`, `RemoteOwner`, `JobId`).
//!
//! Volatile attributes (times, load, addresses, statistics) are not
//! modelled.

use classad::{ClassAd, Expr, Value};

use std::sync::Arc;

use super::layout::{advertise_cpus, type_bool, type_param};
use super::node::{DynamicSlot, Startd};
use super::policy::{PolicyStep, SlotPolicy};
use super::{Slot, SlotKind};

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

fn num(v: f64) -> Expr {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Expr::from(v as i64)
    } else {
        Expr::from(v)
    }
}

fn str_list(items: impl IntoIterator<Item = String>) -> Expr {
    Expr::list(items.into_iter().map(Expr::from).collect())
}

impl Startd {
    /// Whether slots of `type_id` have a consumption policy
    /// (`CONSUMPTION_POLICY`, per type).
    pub(crate) fn has_consumption_policy(&self, slot: &Slot) -> bool {
        slot.kind != SlotKind::Static && self.policies.knobs(&self.config, slot.type_id).consumption_policy
    }

    fn expr_or(&self, text: &str, warnings: &mut Vec<String>, what: &str) -> Option<Expr> {
        match classad::parse_expr(text) {
            Ok(e) => Some(e),
            Err(e) => {
                warnings.push(format!("{what}: can't insert '{text}' into the slot ad: {e}"));
                None
            }
        }
    }

    pub(crate) fn build_ad(
        &self,
        slot: &Slot,
        job: Option<&ClassAd>,
        children: &[&DynamicSlot],
        warnings: &mut Vec<String>,
    ) -> ClassAd {
        let totals = &self.layout.totals;
        let custom: Vec<String> = totals.custom.iter().map(|c| c.name.clone()).collect();
        let mut ad = ClassAd::new();
        ad.insert("MyType", "Machine");
        ad.insert("TargetType", "Job");
        ad.insert("Name", self.slot_name(slot));
        ad.insert("Machine", self.machine.name.as_str());
        ad.insert("IsLocalStartd", false);
        // The host's attributes first: the startd's own ones and
        // STARTD_ATTRS below take precedence.
        for (name, expr) in &self.machine.attributes {
            ad.insert(name.as_str(), expr.clone());
        }
        for c in &totals.custom {
            // the count, or what an inventory reported
            let detected = match &c.detected {
                Some(d @ Value::Str(_)) => d.to_expr(),
                _ => num(c.total),
            };
            ad.insert(format!("Detected{}", c.name).as_str(), detected);
        }
        ad.insert("DetectedCpus", i64::from(self.machine.cpus));
        ad.insert("DetectedMemory", self.machine.memory);

        // Resources.
        let mut cpus = slot.cpus;
        let mut memory = slot.memory;
        if slot.kind == SlotKind::Partitionable {
            // a partitionable slot's own numbers already exclude its children
            cpus = cpus.max(0.0);
            memory = memory.max(0);
        }
        ad.insert("Cpus", num(advertise_cpus(cpus, slot.fractional_cpus)));
        ad.insert("TotalSlotCpus", num(slot.advertised_total_cpus()));
        ad.insert("Memory", memory);
        ad.insert("TotalSlotMemory", slot.total_memory);
        ad.insert("Disk", slot.disk(totals.disk));
        ad.insert("TotalSlotDisk", slot.total_disk as f64);
        ad.insert("VirtualMemory", slot.swap(totals.swap));
        for c in &totals.custom {
            let have = slot.custom.get(&c.name).copied().unwrap_or(0.0);
            ad.insert(c.name.as_str(), have.trunc() as i64);
            ad.insert(
                format!("TotalSlot{}", c.name).as_str(),
                slot.custom_total.get(&c.name).copied().unwrap_or(0.0).trunc() as i64,
            );
            if let Some(ids) = slot.ids.get(&c.name) {
                ad.insert(format!("Assigned{}", c.name).as_str(), ids.join(","));
            }
            ad.insert(format!("Total{}", c.name).as_str(), num(c.total));
        }
        ad.insert("TotalCpus", totals.cpus as f64);
        ad.insert("TotalMemory", totals.memory);
        ad.insert("TotalDisk", totals.disk);
        if let Some(v) = self.machine.total_virtual_memory {
            ad.insert("TotalVirtualMemory", v);
        }
        ad.insert("TotalSlots", (self.layout.slots.len() + self.dynamic.len()) as i64);
        ad.insert("MachineResources", totals.machine_resources());

        // Identity.
        ad.insert("SlotID", i64::from(slot.id));
        ad.insert("SlotTypeID", i64::from(slot.type_id));
        ad.insert("SlotType", slot.kind.as_str());
        match slot.kind {
            SlotKind::Partitionable => {
                ad.insert("PartitionableSlot", true);
                ad.insert("PslotRollupInformation", true);
                ad.insert("NumDynamicSlots", children.len() as i64);
                self.child_lists(&mut ad, children, &custom);
            }
            SlotKind::Dynamic => {
                ad.insert("DynamicSlot", true);
                ad.insert("ParentSlotId", i64::from(slot.id));
                ad.insert("DSlotId", i64::from(slot.sub_id));
                ad.insert("PslotRollupInformation", true);
            }
            SlotKind::Static => {}
        }
        match job {
            Some(job) => {
                ad.insert("State", "Claimed");
                ad.insert("Activity", "Busy");
                for (from, to) in [("User", "RemoteUser"), ("User", "RemoteOwner")] {
                    if let Value::Str(s) = job.eval_attr(from) {
                        ad.insert(to, s.to_string());
                    }
                }
                if let (Value::Int(c), Value::Int(p)) = (job.eval_attr("ClusterId"), job.eval_attr("ProcId")) {
                    ad.insert("JobId", format!("{c}.{p}"));
                }
            }
            None => {
                ad.insert("State", "Unclaimed");
                ad.insert("Activity", "Idle");
            }
        }

        // Policy: read from the configuration once per slot id and kind.
        let policy = match self.policies.slot_entry(&self.layout, slot) {
            Some(cell) => cell.get_or_init(|| Arc::new(self.read_policy(slot))).clone(),
            None => Arc::new(self.read_policy(slot)),
        };
        for step in &policy.steps {
            match step {
                PolicyStep::Insert(name, e) => {
                    ad.insert(name.as_str(), e.clone());
                }
                PolicyStep::Remove(name) => {
                    ad.remove(name.as_str());
                }
                PolicyStep::NumClaims(claims) => {
                    ad.insert("NumClaims", claims.unwrap_or(slot.total_cpus.ceil() as i64));
                }
            }
        }
        warnings.extend(policy.warnings.iter().cloned());
        ad
    }

    /// The policy part of the ad of `slot` (see [`SlotPolicy`]), read from
    /// the configuration.
    fn read_policy(&self, slot: &Slot) -> SlotPolicy {
        let totals = &self.layout.totals;
        let custom: Vec<String> = totals.custom.iter().map(|c| c.name.clone()).collect();
        let mut steps = Vec::new();
        let mut warnings = Vec::new();
        let start = type_param(&self.config, slot.type_id, "START").unwrap_or_else(|| "true".into());
        if let Some(e) = self.expr_or(&start, &mut warnings, "START") {
            steps.push(PolicyStep::Insert("Start".into(), e));
        }
        let requirements = if slot.kind == SlotKind::Static { "START" } else { "START && (WithinResourceLimits)" };
        if let Some(e) = self.expr_or(requirements, &mut warnings, "Requirements") {
            steps.push(PolicyStep::Insert("Requirements".into(), e));
        }
        let cp = self.has_consumption_policy(slot);
        if slot.kind != SlotKind::Static {
            let wrl = match type_param(&self.config, slot.type_id, "WithinResourceLimits") {
                Some(v) if !v.trim().is_empty() => v,
                _ if cp => within_resource_limits_cp(&custom),
                _ => within_resource_limits(
                    &custom,
                    type_bool(&self.config, slot.type_id, "STARTD_JOB_HAS_REQUEST_ATTRS", false),
                ),
            };
            if let Some(e) = self.expr_or(&wrl, &mut warnings, "WithinResourceLimits") {
                steps.push(PolicyStep::Insert("WithinResourceLimits".into(), e));
            }
        }
        match type_param(&self.config, slot.type_id, "RANK").filter(|r| !r.trim().is_empty()) {
            Some(r) => {
                if let Some(e) = self.expr_or(&r, &mut warnings, "RANK") {
                    steps.push(PolicyStep::Insert("Rank".into(), e));
                }
            }
            None => {
                steps.push(PolicyStep::Insert("Rank".into(), 0.0.into()));
            }
        }
        let weight = type_param(&self.config, slot.type_id, "SLOT_WEIGHT")
            .filter(|w| !w.trim().is_empty())
            .unwrap_or_else(|| "Cpus".into());
        if let Some(e) = self.expr_or(&weight, &mut warnings, "SLOT_WEIGHT") {
            steps.push(PolicyStep::Insert("SlotWeight".into(), e));
        }
        if let Some(v) =
            type_param(&self.config, slot.type_id, "MACHINE_MAX_VACATE_TIME").filter(|v| !v.trim().is_empty())
        {
            if let Some(e) = self.expr_or(&v, &mut warnings, "MACHINE_MAX_VACATE_TIME") {
                steps.push(PolicyStep::Insert("MachineMaxVacateTime".into(), e));
            }
        }
        if cp {
            for asset in totals.machine_resources().split_whitespace() {
                if asset.eq_ignore_ascii_case("swap") {
                    continue;
                }
                let text = type_param(&self.config, slot.type_id, &format!("CONSUMPTION_{asset}"))
                    .filter(|v| !v.trim().is_empty())
                    .unwrap_or_else(|| {
                        format!("ifthenelse(target.Request{asset} =?= undefined, 0, target.Request{asset})")
                    });
                if let Some(e) = self.expr_or(&text, &mut warnings, &format!("CONSUMPTION_{asset}")) {
                    steps.push(PolicyStep::Insert(format!("Consumption{asset}"), e));
                }
            }
            if slot.kind == SlotKind::Partitionable {
                let claims =
                    type_param(&self.config, slot.type_id, "NUM_CLAIMS").and_then(|v| v.trim().parse::<i64>().ok());
                steps.push(PolicyStep::NumClaims(claims));
            }
        }

        // STARTD_ATTRS, SLOT<N>_STARTD_ATTRS, SYSTEM_STARTD_ATTRS.
        let slot_prefix = format!("SLOT{}", slot.id);
        let mut attrs: Vec<String> = Vec::new();
        for list in [
            type_param(&self.config, slot.type_id, "STARTD_ATTRS"),
            self.config.lookup(&format!("{slot_prefix}_STARTD_ATTRS")).map(|l| l.value),
            type_param(&self.config, slot.type_id, "SYSTEM_STARTD_ATTRS"),
        ]
        .into_iter()
        .flatten()
        {
            attrs.extend(list.split([',', ' ', '\t', '\n']).filter(|s| !s.is_empty()).map(str::to_string));
        }
        for attr in attrs {
            let value = self
                .config
                .lookup(&format!("{slot_prefix}_{attr}"))
                .map(|l| l.value)
                .or_else(|| type_param(&self.config, slot.type_id, &attr));
            let Some(value) = value else { continue };
            if value.trim().is_empty() {
                steps.push(PolicyStep::Remove(attr.clone()));
                continue;
            }
            if let Some(e) = self.expr_or(value.trim(), &mut warnings, &attr) {
                steps.push(PolicyStep::Insert(attr, e));
            }
        }
        SlotPolicy { steps, warnings }
    }

    fn child_lists(&self, ad: &mut ClassAd, children: &[&DynamicSlot], custom: &[String]) {
        let totals = &self.layout.totals;
        let nums = |f: &dyn Fn(&DynamicSlot) -> Expr| Expr::list(children.iter().map(|d| f(d)).collect());
        ad.insert("ChildCpus", nums(&|d| num(d.slot.advertised_cpus())));
        ad.insert("ChildMemory", nums(&|d| Expr::from(d.slot.memory)));
        ad.insert("ChildDisk", nums(&|d| Expr::from(d.slot.disk(totals.disk))));
        for r in custom {
            ad.insert(
                format!("Child{r}").as_str(),
                nums(&|d| Expr::from(d.slot.custom.get(r).copied().unwrap_or(0.0).trunc() as i64)),
            );
        }
        ad.insert("ChildName", str_list(children.iter().map(|d| self.slot_name(&d.slot))));
        ad.insert("ChildDSlotId", nums(&|d| Expr::from(i64::from(d.slot.sub_id))));
        ad.insert("ChildState", str_list(children.iter().map(|_| "Claimed".to_string())));
        ad.insert("ChildActivity", str_list(children.iter().map(|_| "Busy".to_string())));
        let users = |attr: &str| {
            Expr::list(
                children
                    .iter()
                    .map(|d| match d.job.eval_attr(attr) {
                        Value::Str(s) => Expr::from(s.to_string()),
                        _ => Value::Undefined.to_expr(),
                    })
                    .collect(),
            )
        };
        let remote_users = users("User");
        ad.insert("ChildRemoteUser", remote_users.clone());
        ad.insert("ChildRemoteOwner", remote_users);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
