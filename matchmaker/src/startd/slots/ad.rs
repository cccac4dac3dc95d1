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

use classad::{ClassAd, Expr, Name, Value};

use std::sync::Arc;

mod policy_attrs;

use super::attrs::{num, string_attr, CustomNames, NAMES};
use super::children::{child_lists, DynamicSlot};
use super::layout::{advertise_cpus, Layout};
use super::naming::{push_number, Naming};
use super::slot_config::{Policies, PolicyStep, SlotPolicy};
use super::{Machine, SlotKind, SlotResources};
use crate::config::Config;
use policy_attrs::read_policy;

/// What building the ads of a startd's slots reads of the startd.
#[derive(Clone, Copy)]
pub(crate) struct SlotAds<'a> {
    /// The machine (its name, detected resources and host attributes).
    pub machine: &'a Machine,
    /// The startd's configuration.
    pub config: &'a Config,
    /// The layout (totals, and its slots' places).
    pub layout: &'a Layout,
    /// What the configuration says of the slots, read once.
    pub policies: &'a Policies,
    /// The attribute names of each custom resource, in the machine's order.
    pub custom_names: &'a [CustomNames],
    /// The slots' names.
    pub naming: Naming<'a>,
    /// `TotalSlots`: the layout's slots and the dynamic slots.
    pub total_slots: usize,
}

impl SlotAds<'_> {
    /// The ad of `slot` (with `job`, the claim of a dynamic slot, and
    /// `children`, the dynamic slots of a partitionable one).
    ///
    /// The first ad built for a slot of the layout (per kind and per
    /// shape of claim) is kept as a base; later ads of that slot are the
    /// base with the attributes that change (resources, `TotalSlots`,
    /// the child lists, the claim) set again in place, which gives the
    /// same ad, attribute for attribute and in the same order, as
    /// building it afresh. A slot whose policy sets one of those
    /// attributes itself is always built afresh.
    pub(crate) fn build_ad(
        &self,
        slot: &SlotResources,
        job: Option<&ClassAd>,
        children: &[&DynamicSlot],
        warnings: &mut Vec<String>,
    ) -> ClassAd {
        // Policy: read from the configuration once per slot id and kind.
        let policy = match self.policies.slot_entry(self.layout, slot) {
            Some(cell) => cell
                .get_or_init(|| Arc::new(read_policy(self.config, &self.layout.totals, self.policies, slot)))
                .clone(),
            None => Arc::new(read_policy(self.config, &self.layout.totals, self.policies, slot)),
        };
        warnings.extend(policy.warnings.iter().cloned());
        let base = self.policies.base_entry(self.layout, slot, claim_shape(job));
        if let Some(Some(base)) = base.and_then(|b| b.get()) {
            let mut ad = (**base).clone();
            if self.fill(&mut ad, slot, job, children, Fill::Patch).complete
                && self.patch_policy(&mut ad, slot, &policy)
            {
                return ad;
            }
        }
        let ad = self.build_fresh(slot, job, children, &policy);
        if let Some(cell) = base {
            cell.get_or_init(|| self.patchable(&ad, slot, job, children, &policy).then(|| Arc::new(ad.clone())));
        }
        ad
    }

    /// Brings `ad`, an earlier ad of `slot` (with `job` and `children` as
    /// [`build_ad`](Self::build_ad) takes them) that this startd built,
    /// up to date in place: the attributes that change over the slot's
    /// life set again (see [`Fill::Own`]; those of its base for a dynamic
    /// slot), when the slot has a base and `ad` has its attributes;
    /// otherwise built again. Either way `ad` ends as `build_ad` would
    /// make it.
    pub(crate) fn refresh_built_ad(
        &self,
        ad: &mut ClassAd,
        slot: &SlotResources,
        job: Option<&ClassAd>,
        children: &[&DynamicSlot],
    ) {
        let base = self.policies.base_entry(self.layout, slot, claim_shape(job)).and_then(|b| b.get());
        let policy = self.policies.slot_entry(self.layout, slot).and_then(|cell| cell.get());
        if let (Some(Some(base)), Some(policy)) = (base, policy) {
            // An earlier ad of the slot has the base's attributes, in its
            // order: patching it sets what patching the base would.
            if ad.len() == base.len()
                && ad.chained_parent().is_none()
                && self.fill(ad, slot, job, children, own_or_patch(slot)).complete
                && self.patch_policy(ad, slot, policy)
            {
                return;
            }
        }
        *ad = self.build_ad(slot, job, children, &mut Vec::new());
    }

    /// Whether an ad built afresh (`ad`) may serve as the base of later
    /// ads of its slot: no policy step sets or removes an attribute that
    /// patching sets.
    fn patchable(
        &self,
        ad: &ClassAd,
        slot: &SlotResources,
        job: Option<&ClassAd>,
        children: &[&DynamicSlot],
        policy: &SlotPolicy,
    ) -> bool {
        let mut probe = ad.clone();
        let filled = self.fill(&mut probe, slot, job, children, Fill::Record(Vec::new()));
        let Fill::Record(patched) = filled.mode else { return false };
        if !filled.complete {
            return false;
        }
        let mut after_num_claims = false;
        for step in &policy.steps {
            let name = match step {
                PolicyStep::Insert(name, _) | PolicyStep::Remove(name) => name.as_str(),
                PolicyStep::NumClaims(_) => {
                    after_num_claims = true;
                    continue;
                }
            };
            if patched.iter().any(|p| p.is(name)) || (after_num_claims && NAMES.num_claims.is(name)) {
                return false;
            }
        }
        true
    }

    /// Sets `NumClaims` again in a patched ad, if the policy has it.
    /// False when the base lacks it (the ad must be built afresh).
    fn patch_policy(&self, ad: &mut ClassAd, slot: &SlotResources, policy: &SlotPolicy) -> bool {
        for step in &policy.steps {
            if let PolicyStep::NumClaims(claims) = step {
                if ad.insert(NAMES.num_claims, claims.unwrap_or(slot.total_cpus.ceil() as i64)).is_none() {
                    return false;
                }
            }
        }
        true
    }

    /// The ad of `slot` built from nothing.
    fn build_fresh(
        &self,
        slot: &SlotResources,
        job: Option<&ClassAd>,
        children: &[&DynamicSlot],
        policy: &SlotPolicy,
    ) -> ClassAd {
        let n = &*NAMES;
        let mut ad = ClassAd::with_capacity(64 + self.machine.attributes.len() + policy.steps.len());
        ad.insert(n.my_type, "Machine");
        ad.insert(n.target_type, "Job");
        ad.insert(n.name, self.naming.slot_name(slot));
        ad.insert(n.machine, self.machine.name.as_str());
        ad.insert(n.is_local_startd, false);
        // The host's attributes first: the startd's own ones and
        // STARTD_ATTRS below take precedence.
        for (name, expr) in &self.machine.attributes {
            ad.insert(name.as_str(), expr.clone());
        }
        self.fill(&mut ad, slot, job, children, Fill::Fresh);
        for step in &policy.steps {
            match step {
                PolicyStep::Insert(name, e) => {
                    ad.insert(name.as_str(), e.clone());
                }
                PolicyStep::Remove(name) => {
                    ad.remove(name.as_str());
                }
                PolicyStep::NumClaims(claims) => {
                    ad.insert(n.num_claims, claims.unwrap_or(slot.total_cpus.ceil() as i64));
                }
            }
        }
        ad
    }

    /// The resources, identity and claim of `slot` in `ad`: all of them
    /// ([`Fill::Fresh`]), only those that differ from slot to slot or
    /// change over a slot's life ([`Fill::Patch`], [`Fill::Record`]), or
    /// only those that change over its life ([`Fill::Own`]).
    fn fill<'a>(
        &self,
        ad: &'a mut ClassAd,
        slot: &SlotResources,
        job: Option<&ClassAd>,
        children: &[&DynamicSlot],
        mode: Fill,
    ) -> Filled<'a> {
        let n = &*NAMES;
        let totals = &self.layout.totals;
        let custom = self.custom_names;
        let fresh = matches!(mode, Fill::Fresh);
        // What does not change over a layout slot's life (its name,
        // totals and device ids) is set again only in another ad than an
        // earlier one of the slot itself.
        let lifelong = !matches!(mode, Fill::Own);
        let mut f = Filled { ad, mode, complete: true };
        if !fresh && lifelong {
            // (an ad of the slot itself has its name already: patching
            // sets it again only in a base of another slot)
            let named = matches!(&f.mode, Fill::Patch)
                && matches!(f.ad.get(n.name).and_then(Expr::as_literal),
                    Some(classad::Literal::Str(s)) if self.naming.is_named(slot, s.as_str()));
            if !named {
                f.put(n.name, self.naming.slot_name(slot));
            }
        }
        if fresh {
            for (c, names) in totals.custom.iter().zip(custom.iter()) {
                // the count, or what an inventory reported
                let detected = match &c.detected {
                    Some(d @ Value::Str(_)) => d.to_expr(),
                    _ => num(c.total),
                };
                f.put(names.detected, detected);
            }
            f.put(n.detected_cpus, i64::from(self.machine.cpus));
            f.put(n.detected_memory, self.machine.memory);
        }

        // Resources.
        let mut cpus = slot.cpus;
        let mut memory = slot.memory;
        if slot.kind == SlotKind::Partitionable {
            // a partitionable slot's own numbers already exclude its children
            cpus = cpus.max(0.0);
            memory = memory.max(0);
        }
        // a fractional slot's CPUs are a real even when whole (`1.0`)
        let cpus_expr = |v: f64| if slot.fractional_cpus { Expr::from(v) } else { num(v) };
        f.put(n.cpus, cpus_expr(advertise_cpus(cpus, slot.fractional_cpus)));
        if lifelong {
            f.put(n.total_slot_cpus, cpus_expr(slot.advertised_total_cpus()));
        }
        f.put(n.memory, memory);
        if lifelong {
            f.put(n.total_slot_memory, slot.total_memory);
        }
        f.put(n.disk, slot.disk(totals.disk));
        if lifelong {
            f.put(n.total_slot_disk, slot.total_disk as f64);
        }
        f.put(n.virtual_memory, slot.swap(totals.swap));
        for (c, names) in totals.custom.iter().zip(custom.iter()) {
            let have = slot.custom.get(&c.name).copied().unwrap_or(0.0);
            f.put(names.own, have.trunc() as i64);
            if !lifelong {
                continue;
            }
            f.put(names.total_slot, slot.custom_total.get(&c.name).copied().unwrap_or(0.0).trunc() as i64);
            match slot.ids.get(&c.name) {
                Some(ids) => f.put(names.assigned, ids.join(",")),
                // a base that has it does not fit this slot
                None if !fresh && f.ad.contains(names.assigned) => f.complete = false,
                None => {}
            }
            if fresh {
                f.put(names.total, num(c.total));
            }
        }
        if fresh {
            f.put(n.total_cpus, totals.cpus as f64);
            f.put(n.total_memory, totals.memory);
            f.put(n.total_disk, totals.disk);
            if let Some(v) = self.machine.total_virtual_memory {
                f.put(n.total_virtual_memory, v);
            }
        }
        f.put(n.total_slots, self.total_slots as i64);
        if fresh {
            f.put(n.machine_resources, totals.machine_resources());
            // Identity.
            f.put(n.slot_id, i64::from(slot.id));
            f.put(n.slot_type_id, i64::from(slot.type_id));
            f.put(n.slot_type, slot.kind.as_str());
        }
        match slot.kind {
            SlotKind::Partitionable => {
                if fresh {
                    f.put(n.partitionable_slot, true);
                    f.put(n.pslot_rollup, true);
                }
                f.put(n.num_dynamic_slots, children.len() as i64);
                child_lists(children.iter().map(|d| &d.row), children.len(), self.custom_names, |name, e| {
                    f.put(name, e)
                });
            }
            SlotKind::Dynamic => {
                if fresh {
                    f.put(n.dynamic_slot, true);
                    f.put(n.parent_slot_id, i64::from(slot.id));
                }
                f.put(n.dslot_id, i64::from(slot.sub_id));
                if fresh {
                    f.put(n.pslot_rollup, true);
                }
            }
            SlotKind::Static => {}
        }
        match job {
            Some(job) => {
                if fresh {
                    f.put(n.state, "Claimed");
                    f.put(n.activity, "Busy");
                }
                if let Some(user) = string_attr(job, n.user) {
                    f.put(n.remote_user, user.clone());
                    f.put(n.remote_owner, user);
                }
                if let (Value::Int(c), Value::Int(p)) = (job.eval_attr(n.cluster_id), job.eval_attr(n.proc_id)) {
                    let mut id = String::with_capacity(24);
                    push_number(&mut id, c);
                    id.push('.');
                    push_number(&mut id, p);
                    f.put(n.job_id, id);
                }
            }
            None => {
                if fresh {
                    f.put(n.state, "Unclaimed");
                    f.put(n.activity, "Idle");
                }
            }
        }
        f
    }
}

/// How [`SlotAds::fill`] sets a slot's attributes.
enum Fill {
    /// All of them, in a new ad.
    Fresh,
    /// Those that change, in a copy of the slot's base ad.
    Patch,
    /// As `Patch`, noting the names set.
    Record(Vec<Name>),
    /// Those that change over the life of a static or partitionable
    /// slot (its resources, `TotalSlots`, `NumDynamicSlots` and child
    /// lists), in an earlier ad of the slot itself, which has the rest as
    /// they still are. (A dynamic slot's name may come back on another
    /// slot, with another claim: its ads are patched.)
    Own,
}

/// How an earlier ad of `slot` is brought up to date (see [`Fill::Own`]).
fn own_or_patch(slot: &SlotResources) -> Fill {
    if slot.kind == SlotKind::Dynamic {
        Fill::Patch
    } else {
        Fill::Own
    }
}

/// An ad being filled.
struct Filled<'a> {
    ad: &'a mut ClassAd,
    mode: Fill,
    /// When patching: every attribute set was in the base already.
    complete: bool,
}

impl Filled<'_> {
    fn put(&mut self, name: Name, value: impl Into<Expr>) {
        let before = self.ad.insert(name, value);
        match &mut self.mode {
            Fill::Fresh => {}
            Fill::Patch | Fill::Own => self.complete &= before.is_some(),
            Fill::Record(names) => {
                self.complete &= before.is_some();
                names.push(name);
            }
        }
    }
}

/// Which base ad a slot's ad starts from, by what its claim gives it:
/// whether there is a job, whether it has a string `User`, whether it has
/// integer `ClusterId` and `ProcId`.
fn claim_shape(job: Option<&ClassAd>) -> usize {
    let n = &*NAMES;
    match job {
        None => 0,
        Some(job) => {
            let user = string_attr(job, n.user).is_some();
            let id = matches!((job.eval_attr(n.cluster_id), job.eval_attr(n.proc_id)), (Value::Int(_), Value::Int(_)));
            1 + usize::from(user) + 2 * usize::from(id)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::startd::slots::Startd;

    use crate::config::Config;
    use crate::startd::slots::Machine;
    use proptest::prelude::*;

    /// Every ad of `startd` as `ads` gives it, and as built afresh.
    fn ads_both_ways(startd: &mut Startd) -> (Vec<String>, Vec<String>) {
        let patched: Vec<String> = startd.ads().iter().map(|ad| ad.to_string()).collect();
        let mut fresh = Vec::new();
        for slot in &startd.layout.slots {
            let children: Vec<&DynamicSlot> = startd.dynamic.iter().filter(|d| d.slot.id == slot.id).collect();
            let policy = read_policy(&startd.config, &startd.layout.totals, &startd.policies, slot);
            fresh.push(startd.slot_ads().build_fresh(slot, None, &children, &policy).to_string());
            for d in children {
                let policy = read_policy(&startd.config, &startd.layout.totals, &startd.policies, &d.slot);
                fresh.push(startd.slot_ads().build_fresh(&d.slot, Some(&*d.job), &[], &policy).to_string());
            }
        }
        (patched, fresh)
    }

    const CONFIGS: &[&str] = &[
        "STARTD_DETECT_GPUS = false\n",
        "MACHINE_RESOURCE_GPUs = g0, g1, g2\nSTARTD_ATTRS = Team\nTeam = \"blue\"\n",
        "STARTD_DETECT_GPUS = false\nCONSUMPTION_POLICY = true\n",
        "STARTD_DETECT_GPUS = false\nCONSUMPTION_POLICY = true\nNUM_CLAIMS = 5\nSTARTD_ATTRS = NumClaims\nNumClaims = 2\n",
        // a policy that sets attributes patching would set: built afresh
        "STARTD_DETECT_GPUS = false\nSTARTD_ATTRS = Cpus, RemoteUser, ChildCpus\nCpus = 3\nRemoteUser =\nChildCpus = {}\n",
        "SLOT_TYPE_1 = cpus=50%\nSLOT_TYPE_1_PARTITIONABLE = true\nNUM_SLOTS_TYPE_1 = 2\nSTARTD_DETECT_GPUS = false\n",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Ads patched from a slot's base are the ads built afresh, through
        /// any sequence of claims (jobs with and without `User` and ids)
        /// and releases.
        #[test]
        fn patched_ads_are_fresh_ads(
            config in 0..CONFIGS.len(),
            steps in proptest::collection::vec((0u8..4, 1i64..4, 1i64..9000, 0u8..4, 0u8..3), 1..24),
        ) {
            let machine = Machine { name: "h".into(), cpus: 8, memory: 16384, disk: 8_000_000, ..Machine::default() };
            let config = Config::parse_str(CONFIGS[config], "t.conf").expect("config");
            let mut startd = Startd::new(machine, &config).expect("startd");
            // Each slot's ad as first given, refreshed in place at every step
            // (by name, and by place in the layout).
            let mut kept: std::collections::BTreeMap<String, ClassAd> = std::collections::BTreeMap::new();
            let mut by_place: Vec<Option<ClassAd>> = vec![None; startd.layout.slots.len()];
            for (action, cpus, memory, shape, gpus) in steps {
                if action == 0 && !startd.dynamic.is_empty() {
                    let k = (memory as usize) % startd.dynamic.len();
                    let name = startd.slot_name(&startd.dynamic[k].slot);
                    startd.release(&name).expect("release");
                    kept.remove(&name);
                } else {
                    let mut job = ClassAd::new();
                    job.insert("RequestCpus", cpus);
                    job.insert("RequestMemory", memory);
                    job.insert("RequestDisk", 1000);
                    job.insert("RequestGPUs", i64::from(gpus));
                    if shape & 1 == 1 {
                        job.insert("User", format!("u{}@d", memory % 3));
                    }
                    if shape & 2 == 2 {
                        job.insert("ClusterId", memory);
                        job.insert("ProcId", cpus);
                    }
                    let slot = if memory % 2 == 0 { "slot1" } else { "2" };
                    let _ = startd.claim(slot, &job);
                }
                let (patched, fresh) = ads_both_ways(&mut startd);
                prop_assert_eq!(&patched, &fresh);
                let names: Vec<String> = startd
                    .layout
                    .slots
                    .iter()
                    .map(|s| startd.slot_name(s))
                    .chain(startd.dynamic.iter().map(|d| startd.slot_name(&d.slot)))
                    .collect();
                for (index, kept) in by_place.iter_mut().enumerate() {
                    let now = startd.ad(&startd.slot_name(&startd.layout.slots[index])).expect("a layout slot");
                    match kept {
                        Some(ad) => {
                            prop_assert!(startd.refresh_layout_ad(index, ad));
                            prop_assert_eq!(ad.to_string(), now.to_string());
                        }
                        None => *kept = Some(now),
                    }
                }
                for name in names {
                    let now = startd.ad(&name).expect("a slot of the startd");
                    match kept.get_mut(&name) {
                        Some(ad) => {
                            prop_assert!(startd.refresh_ad(&name, ad));
                            prop_assert_eq!(ad.to_string(), now.to_string());
                        }
                        None => {
                            kept.insert(name, now);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn ads_are_patched_from_a_base_when_the_policy_allows() -> Result<(), Box<dyn std::error::Error>> {
        let machine = Machine { name: "h".into(), cpus: 8, memory: 16384, disk: 8_000_000, ..Machine::default() };
        let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 100; RequestDisk = 1; User = \"u@d\" ]".parse()?;
        for (text, patched) in [(CONFIGS[0], true), (CONFIGS[4], false)] {
            let mut startd = Startd::new(machine.clone(), &Config::parse_str(text, "t.conf")?)?;
            startd.claim("slot1", &job)?;
            startd.ads();
            let p = &startd.layout.slots[0];
            let base = startd.policies.base_entry(&startd.layout, p, 0).and_then(|b| b.get());
            assert_eq!(base.map(|b| b.is_some()), Some(patched), "{text}");
            let d = &startd.dynamic[0].slot;
            let base = startd.policies.base_entry(&startd.layout, d, claim_shape(Some(&job))).and_then(|b| b.get());
            assert_eq!(base.map(|b| b.is_some()), Some(patched), "{text}");
        }
        Ok(())
    }

    #[test]
    fn slot_names_are_found_without_building_them() -> Result<(), Box<dyn std::error::Error>> {
        let machine = Machine { name: "h".into(), cpus: 8, memory: 16384, disk: 8_000_000, ..Machine::default() };
        let text = "SLOT_TYPE_1 = cpus=50%\nSLOT_TYPE_1_PARTITIONABLE = true\nNUM_SLOTS_TYPE_1 = 2\nSTARTD_DETECT_GPUS = false\n";
        let mut startd = Startd::new(machine, &Config::parse_str(text, "t.conf")?)?;
        assert_eq!(startd.find_slot("slot2@h"), Some(1));
        assert_eq!(startd.find_slot("slot2"), Some(1));
        assert_eq!(startd.find_slot("2"), Some(1));
        for key in ["slot2@hh", "slot22@h", "slot2_1@h", "slot@h", "12", "slot2@"] {
            assert_eq!(startd.find_slot(key), None, "{key}");
        }
        let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 100; RequestDisk = 1 ]".parse()?;
        let name = startd.claim("slot1", &job)?.name;
        assert_eq!(name, "slot1_1@h");
        let d = &startd.dynamic[0].slot;
        assert!(startd.is_named(d, "slot1_1@h"));
        assert!(!startd.is_named(d, "slot1_11@h") && !startd.is_named(d, "slot1@h") && !startd.is_named(d, "slot1_1"));
        // a dynamic slot knows its own name without working it out again
        let d = &startd.dynamic[0];
        assert!(d.is_named("slot1_1@h"));
        assert!(!d.is_named("slot1_11@h") && !d.is_named("slot1@h") && !d.is_named("slot1_1"));
        assert!(startd.ad("slot1_1@h").is_some() && startd.ad("slot1_2@h").is_none());
        Ok(())
    }
}
