//! Consumption policies: how a partitionable slot is carved up by the
//! negotiator itself, several jobs per cycle.
//!
//! A slot has a policy when it is partitionable (`PartitionableSlot`) and,
//! for every resource of its `MachineResources` but swap, a
//! `Consumption<Resource>` expression. Evaluated with the slot as MY and
//! the job as TARGET, each gives what a job takes of that resource
//! (HTCondor's defaults round requests up: `quantize(target.RequestCpus,
//! {1})`, `quantize(target.RequestMemory, {128})`,
//! `quantize(target.RequestDisk, {1024})`). The slot is sufficient for
//! the job when it has at least that much of every resource and the job
//! takes something; while the two ads' `Requirements` are evaluated, the
//! job's `Request<Resource>` attributes read as the consumption. A match
//! deducts the consumption from the slot, which stays available, and
//! costs the drop of the slot's `SlotWeight`.
//!
//! ```
//! use classad::ClassAd;
//! use matchmaker::consumption;
//!
//! let mut slot: ClassAd = r#"[ PartitionableSlot = true; MachineResources = "Cpus Memory";
//!     Cpus = 8; Memory = 16384; SlotWeight = Cpus;
//!     ConsumptionCpus = quantize(target.RequestCpus, {1});
//!     ConsumptionMemory = quantize(target.RequestMemory, {128}) ]"#.parse()?;
//! let job: ClassAd = "[ RequestCpus = 3; RequestMemory = 1000 ]".parse()?;
//! assert!(consumption::has_policy(&slot));
//! let taken = consumption::of(&job, &slot);
//! assert_eq!(taken, [("Cpus".to_string(), 3.0), ("Memory".to_string(), 1024.0)]);
//! assert!(consumption::sufficient(&slot, &taken));
//! assert_eq!(consumption::deduct(&mut slot, &taken), 3.0); // SlotWeight 8 -> 5
//! assert_eq!(slot.eval_attr("Memory"), classad::Value::Int(15360));
//! # Ok::<(), classad::ParseError>(())
//! ```

use std::sync::LazyLock;

use classad::{ClassAd, EvalContext, EvalOptions, Expr, Name, Semantics, Value};

use crate::candidates::number;

/// What a job takes of each resource: `(resource, amount)` in the order of
/// the slot's `MachineResources`. A policy that does not give a
/// non-negative number gives -999 (never sufficient).
pub type Consumption = Vec<(String, f64)>;

/// The resources of a slot's `MachineResources`, swap left out.
fn resources(slot: &ClassAd) -> Vec<String> {
    resource_names(slot).map(str::to_string).collect()
}

/// [`resources`] as they are written in the slot's ad.
fn resource_names(slot: &ClassAd) -> impl Iterator<Item = &str> {
    let list = match slot.lookup("MachineResources").and_then(Expr::as_literal) {
        Some(classad::Literal::Str(list)) => list.as_str(),
        _ => "",
    };
    list.split(|c: char| c == ',' || c.is_whitespace()).filter(|r| !r.is_empty() && !r.eq_ignore_ascii_case("swap"))
}

fn options() -> EvalOptions {
    EvalOptions::new().semantics(Semantics::Old)
}

/// Whether `slot` is partitionable with a consumption policy for every
/// resource it lists.
pub fn has_policy(slot: &ClassAd) -> bool {
    static NAMES: LazyLock<(Name, Name)> =
        LazyLock::new(|| (Name::new("PartitionableSlot"), Name::new("MachineResources")));
    let (partitionable_slot, machine_resources) = *NAMES;
    // (Written as a literal by every startd: read without evaluating.)
    let partitionable = match slot.lookup(partitionable_slot).map(Expr::as_literal) {
        None => false,
        Some(Some(literal)) => matches!(literal, classad::Literal::Bool(true)),
        Some(None) => matches!(EvalContext::new(&options()).my(slot).eval_attr(partitionable_slot), Value::Bool(true)),
    };
    let mut name = String::new();
    partitionable
        && slot.lookup(machine_resources).is_some()
        && resource_names(slot).all(|r| {
            name.clear();
            name.push_str("Consumption");
            name.push_str(r);
            slot.lookup(name.as_str()).is_some()
        })
}

/// What `job` would take of `slot`'s resources. A job's
/// `_condor_Request<Resource>` stands in for its `Request<Resource>`, and
/// a missing request reads as 0.
pub fn of(job: &ClassAd, slot: &ClassAd) -> Consumption {
    let names = resources(slot);
    let mut view = job.clone();
    for r in &names {
        let request = format!("Request{r}");
        let forced = format!("_condor_Request{r}");
        match view.lookup(forced.as_str()).cloned() {
            Some(expr) => {
                view.insert(request.as_str(), expr);
            }
            None if view.lookup(request.as_str()).is_none() => {
                view.insert(request.as_str(), 0i64);
            }
            None => {}
        }
    }
    let opts = options();
    let ctx = EvalContext::new(&opts).my(slot).target(&view);
    names
        .into_iter()
        .map(|r| {
            let amount = number(&ctx.eval_attr(format!("Consumption{r}").as_str())).filter(|v| *v >= 0.0);
            (r, amount.unwrap_or(-999.0))
        })
        .collect()
}

/// Whether `slot` has every resource the job takes, and the job takes
/// something.
pub fn sufficient(slot: &ClassAd, taken: &Consumption) -> bool {
    let opts = options();
    let ctx = EvalContext::new(&opts).my(slot);
    let mut positive = 0;
    for (r, amount) in taken {
        let have = number(&ctx.eval_attr(r.as_str())).unwrap_or(0.0);
        if have < *amount || *amount < 0.0 {
            return false;
        }
        if *amount > 0.0 {
            positive += 1;
        }
    }
    positive > 0
}

/// `job` with its `Request<Resource>` attributes (those it has) replaced
/// by what it takes, the originals kept as `_cp_orig_Request<Resource>`
/// (which a slot's `WithinResourceLimits` reads), as the two ads'
/// `Requirements` see it.
pub fn job_as_taking(job: &ClassAd, taken: &Consumption) -> ClassAd {
    let mut view = job.clone();
    for (r, amount) in taken {
        let request = format!("Request{r}");
        if let Some(original) = view.lookup(request.as_str()).cloned() {
            view.insert(format!("_cp_orig_{request}").as_str(), original);
            view.insert(request.as_str(), number_expr(*amount));
        }
    }
    view
}

/// A whole number as an integer, anything else as a real (as HTCondor
/// writes the new amounts).
fn number_expr(v: f64) -> Expr {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Expr::from(v as i64)
    } else {
        Expr::from(v)
    }
}

fn slot_weight(slot: &ClassAd) -> f64 {
    let opts = options();
    number(&EvalContext::new(&opts).my(slot).eval_attr("SlotWeight")).unwrap_or(0.0)
}

/// Takes `taken` from `slot`'s resources and returns the cost: how much
/// its `SlotWeight` fell.
pub fn deduct(slot: &mut ClassAd, taken: &Consumption) -> f64 {
    let before = slot_weight(slot);
    let opts = options();
    let left: Vec<(String, f64)> = {
        let ctx = EvalContext::new(&opts).my(slot);
        taken
            .iter()
            .map(|(r, amount)| (r.clone(), number(&ctx.eval_attr(r.as_str())).unwrap_or(0.0) - amount))
            .collect()
    };
    for (r, v) in left {
        slot.insert(r.as_str(), number_expr(v));
    }
    before - slot_weight(slot)
}

/// What matching `job` with `slot` would cost, the slot unchanged.
pub fn cost(job: &ClassAd, slot: &ClassAd) -> f64 {
    let mut trial = slot.clone();
    deduct(&mut trial, &of(job, slot))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ad(text: &str) -> ClassAd {
        text.parse().expect("ad")
    }

    #[test]
    fn a_slot_needs_a_policy_for_every_resource_but_swap() {
        let with = ad(r#"[ PartitionableSlot = true; MachineResources = "Cpus Swap"; ConsumptionCpus = 1 ]"#);
        let without = ad(r#"[ PartitionableSlot = true; MachineResources = "Cpus Memory"; ConsumptionCpus = 1 ]"#);
        let static_slot = ad(r#"[ MachineResources = "Cpus"; ConsumptionCpus = 1 ]"#);
        assert!(has_policy(&with));
        assert!(!has_policy(&without));
        assert!(!has_policy(&static_slot));
    }

    #[test]
    fn nothing_taken_or_a_bad_policy_is_never_sufficient() {
        let slot = ad(r#"[ PartitionableSlot = true; MachineResources = "Cpus GPUs"; Cpus = 4; GPUs = 1;
            ConsumptionCpus = target.RequestCpus; ConsumptionGPUs = target.RequestGPUs ]"#);
        let nothing = of(&ad("[ RequestCpus = 0 ]"), &slot);
        assert_eq!(nothing, [("Cpus".to_string(), 0.0), ("GPUs".to_string(), 0.0)]);
        assert!(!sufficient(&slot, &nothing));
        let bad = of(&ad(r#"[ RequestCpus = "many" ]"#), &slot);
        assert_eq!(bad[0].1, -999.0);
        assert!(!sufficient(&slot, &bad));
        let forced = of(&ad("[ RequestCpus = 1; _condor_RequestCpus = 3; RequestGPUs = 1 ]"), &slot);
        assert_eq!(forced, [("Cpus".to_string(), 3.0), ("GPUs".to_string(), 1.0)]);
        assert!(sufficient(&slot, &forced));
        let greedy = of(&ad("[ RequestCpus = 5 ]"), &slot);
        assert!(!sufficient(&slot, &greedy));
    }

    #[test]
    fn requests_read_as_what_is_taken() {
        let job = ad("[ RequestMemory = 1000; Requirements = TARGET.Memory >= RequestMemory ]");
        let view = job_as_taking(&job, &vec![("Memory".to_string(), 1024.0), ("Disk".to_string(), 10.0)]);
        assert_eq!(view.eval_attr("RequestMemory"), Value::Int(1024));
        assert!(view.lookup("RequestDisk").is_none());
        assert_eq!(view.eval_attr("_cp_orig_RequestMemory"), Value::Int(1000));
        let slot = ad(r#"[ PartitionableSlot = true; MachineResources = "Cpus"; Cpus = 2.5; SlotWeight = Cpus;
            ConsumptionCpus = 0.5 ]"#);
        assert_eq!(cost(&ad("[]"), &slot), 0.5);
        assert_eq!(slot.eval_attr("Cpus"), Value::Real(2.5));
    }
}
