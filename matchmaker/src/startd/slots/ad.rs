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

use std::sync::{Arc, LazyLock};

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
        slot: &Slot,
        job: Option<&ClassAd>,
        children: &[&DynamicSlot],
        warnings: &mut Vec<String>,
    ) -> ClassAd {
        // Policy: read from the configuration once per slot id and kind.
        let policy = match self.policies.slot_entry(&self.layout, slot) {
            Some(cell) => cell.get_or_init(|| Arc::new(self.read_policy(slot))).clone(),
            None => Arc::new(self.read_policy(slot)),
        };
        warnings.extend(policy.warnings.iter().cloned());
        let base = self.policies.base_entry(&self.layout, slot, claim_shape(job));
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
        slot: &Slot,
        job: Option<&ClassAd>,
        children: &[&DynamicSlot],
    ) {
        let base = self.policies.base_entry(&self.layout, slot, claim_shape(job)).and_then(|b| b.get());
        let policy = self.policies.slot_entry(&self.layout, slot).and_then(|cell| cell.get());
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
        slot: &Slot,
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
    fn patch_policy(&self, ad: &mut ClassAd, slot: &Slot, policy: &SlotPolicy) -> bool {
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
        slot: &Slot,
        job: Option<&ClassAd>,
        children: &[&DynamicSlot],
        policy: &SlotPolicy,
    ) -> ClassAd {
        let n = &*NAMES;
        let mut ad = ClassAd::with_capacity(64 + self.machine.attributes.len() + policy.steps.len());
        ad.insert(n.my_type, "Machine");
        ad.insert(n.target_type, "Job");
        ad.insert(n.name, self.slot_name(slot));
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
        slot: &Slot,
        job: Option<&ClassAd>,
        children: &[&DynamicSlot],
        mode: Fill,
    ) -> Filled<'a> {
        let n = &*NAMES;
        let totals = &self.layout.totals;
        let custom = &self.custom_names;
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
                    Some(classad::Literal::Str(s)) if self.is_named(slot, s.as_str()));
            if !named {
                f.put(n.name, self.slot_name(slot));
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
        f.put(n.total_slots, (self.layout.slots.len() + self.dynamic.len()) as i64);
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
                self.child_lists(&mut f, children);
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

    /// What dynamic slot `slot`, named `name` and claimed by `job`, adds to
    /// its partitionable slot's `Child<Attr>` lists.
    pub(crate) fn child_row(&self, slot: &Slot, name: &str, job: &ClassAd) -> ChildRow {
        let totals = &self.layout.totals;
        ChildRow {
            cpus: num(slot.advertised_cpus()),
            memory: Expr::from(slot.memory),
            disk: Expr::from(slot.disk(totals.disk)),
            custom: totals
                .custom
                .iter()
                .map(|c| Expr::from(slot.custom.get(&c.name).copied().unwrap_or(0.0).trunc() as i64))
                .collect(),
            name: Expr::from(name),
            dslot_id: Expr::from(i64::from(slot.sub_id)),
            user: string_attr(job, NAMES.user).unwrap_or_else(|| Value::Undefined.to_expr()),
        }
    }

    /// The `Child<Attr>` lists of a partitionable slot whose dynamic slots
    /// are `children`, in `f`.
    fn child_lists(&self, f: &mut Filled<'_>, children: &[&DynamicSlot]) {
        let n = &*NAMES;
        let rows = || children.iter().map(|d| &d.row);
        f.put(n.child_cpus, column(rows().map(|r| &r.cpus)));
        f.put(n.child_memory, column(rows().map(|r| &r.memory)));
        f.put(n.child_disk, column(rows().map(|r| &r.disk)));
        for (k, names) in self.custom_names.iter().enumerate() {
            f.put(names.child, column(rows().filter_map(|r| r.custom.get(k))));
        }
        f.put(n.child_name, column(rows().map(|r| &r.name)));
        f.put(n.child_dslot_id, column(rows().map(|r| &r.dslot_id)));
        let (claimed, busy) = match CLAIMED_BUSY.get(children.len()) {
            Some(both) => both.clone(),
            None => claimed_busy(children.len()),
        };
        f.put(n.child_state, claimed);
        f.put(n.child_activity, busy);
        let remote_users = column(rows().map(|r| &r.user));
        f.put(n.child_remote_user, remote_users.clone());
        f.put(n.child_remote_owner, remote_users);
    }
}

/// The list of `items`. A list of one integer repeated (the `ChildCpus`
/// of slots claimed by jobs alike, ...) is made once per thread and
/// shared by the ads that have it, rather than built for each.
fn column<'e>(items: impl Iterator<Item = &'e Expr> + Clone) -> Expr {
    match repeated_int(items.clone()) {
        Some((value, len)) => repeated_list(value, len),
        None => Expr::list(items.cloned().collect()),
    }
}

/// The integer every one of `items` is and how many they are, when they
/// are all that integer literal (`Some((0, 0))` for no items: the empty
/// list).
fn repeated_int<'e>(mut items: impl Iterator<Item = &'e Expr>) -> Option<(i64, usize)> {
    let int = |e: &Expr| match e.as_literal() {
        Some(classad::Literal::Int(i)) => Some(*i),
        _ => None,
    };
    let Some(first) = items.next() else { return Some((0, 0)) };
    let value = int(first)?;
    let mut len = 1;
    for e in items {
        if int(e) != Some(value) {
            return None;
        }
        len += 1;
    }
    Some((value, len))
}

/// How many repeated lists [`repeated_list`] keeps per thread before it
/// forgets them all.
const MAX_REPEATED_LISTS: usize = 1024;

thread_local! {
    /// The lists [`repeated_list`] made, by value and length.
    static REPEATED_LISTS: std::cell::RefCell<rustc_hash::FxHashMap<(i64, usize), Expr>> =
        std::cell::RefCell::new(rustc_hash::FxHashMap::default());
}

/// The list of `len` times integer `value`, made once per thread.
fn repeated_list(value: i64, len: usize) -> Expr {
    REPEATED_LISTS.with(|lists| {
        let mut lists = lists.borrow_mut();
        if let Some(list) = lists.get(&(value, len)) {
            return list.clone();
        }
        if lists.len() >= MAX_REPEATED_LISTS {
            lists.clear();
        }
        let list = Expr::list(vec![Expr::from(value); len]);
        lists.insert((value, len), list.clone());
        list
    })
}

/// What a dynamic slot adds to each of its partitionable slot's
/// `Child<Attr>` lists: made when it is created (none of it changes over
/// its life), so that the partitionable slot's ad need not work it out
/// from the slot and its job each time it is built.
#[derive(Debug, Clone)]
pub(crate) struct ChildRow {
    cpus: Expr,
    memory: Expr,
    disk: Expr,
    /// By the machine's custom resources, in order.
    custom: Box<[Expr]>,
    name: Expr,
    dslot_id: Expr,
    /// `User` of its job, UNDEFINED when not a string.
    user: Expr,
}

impl ChildRow {
    /// The slot's name, as its `ChildName` entry has it.
    pub(crate) fn name(&self) -> Option<&str> {
        match self.name.as_literal() {
            Some(classad::Literal::Str(s)) => Some(s.as_str()),
            _ => None,
        }
    }
}

/// `ChildState` and `ChildActivity` of `n` dynamic slots: all `Claimed`,
/// all `Busy`.
fn claimed_busy(n: usize) -> (Expr, Expr) {
    (Expr::list(vec![Expr::from("Claimed"); n]), Expr::list(vec![Expr::from("Busy"); n]))
}

/// [`claimed_busy`] of the usual numbers of dynamic slots, made once.
static CLAIMED_BUSY: LazyLock<Vec<(Expr, Expr)>> = LazyLock::new(|| (0..=64).map(claimed_busy).collect());

/// How [`Startd::fill`] sets a slot's attributes.
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
fn own_or_patch(slot: &Slot) -> Fill {
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

/// Attribute `name` of `ad` as a string expression, when it is a string:
/// the literal itself when it is one (no copy of the text).
fn string_attr(ad: &ClassAd, name: Name) -> Option<Expr> {
    if let Some(e) = ad.lookup(name) {
        if let Some(classad::Literal::Str(_)) = e.as_literal() {
            return Some(e.clone());
        }
    }
    match ad.eval_attr(name) {
        Value::Str(s) => Some(Expr::from(s.to_string())),
        _ => None,
    }
}

/// Appends the decimal digits of `v`.
pub(crate) fn push_number(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    let mut buffer = [0u8; 20];
    for &d in decimal(v.unsigned_abs(), &mut buffer) {
        out.push(char::from(d));
    }
}

/// The decimal digits of `n`, written at the end of `buffer`.
pub(crate) fn decimal(n: u64, buffer: &mut [u8; 20]) -> &[u8] {
    let mut k = buffer.len();
    let mut rest = n;
    loop {
        k -= 1;
        buffer[k] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    &buffer[k..]
}

/// The names of the attributes of a custom resource, interned once per
/// startd.
#[derive(Debug, Clone)]
pub(crate) struct CustomNames {
    own: Name,
    detected: Name,
    total_slot: Name,
    assigned: Name,
    total: Name,
    child: Name,
}

impl CustomNames {
    pub(crate) fn new(resource: &str) -> CustomNames {
        let with = |prefix: &str| {
            let mut text = String::with_capacity(prefix.len() + resource.len());
            text.push_str(prefix);
            text.push_str(resource);
            Name::new(&text)
        };
        CustomNames {
            own: Name::new(resource),
            detected: with("Detected"),
            total_slot: with("TotalSlot"),
            assigned: with("Assigned"),
            total: with("Total"),
            child: with("Child"),
        }
    }
}

macro_rules! attr_names {
    ($($field:ident = $text:literal),* $(,)?) => {
        /// The names of the attributes a slot's ad sets, interned once.
        struct AttrNames { $($field: Name),* }
        static NAMES: LazyLock<AttrNames> = LazyLock::new(|| AttrNames { $($field: Name::new($text)),* });
    };
}

attr_names! {
    my_type = "MyType",
    target_type = "TargetType",
    name = "Name",
    machine = "Machine",
    is_local_startd = "IsLocalStartd",
    detected_cpus = "DetectedCpus",
    detected_memory = "DetectedMemory",
    cpus = "Cpus",
    total_slot_cpus = "TotalSlotCpus",
    memory = "Memory",
    total_slot_memory = "TotalSlotMemory",
    disk = "Disk",
    total_slot_disk = "TotalSlotDisk",
    virtual_memory = "VirtualMemory",
    total_cpus = "TotalCpus",
    total_memory = "TotalMemory",
    total_disk = "TotalDisk",
    total_virtual_memory = "TotalVirtualMemory",
    total_slots = "TotalSlots",
    machine_resources = "MachineResources",
    slot_id = "SlotID",
    slot_type_id = "SlotTypeID",
    slot_type = "SlotType",
    partitionable_slot = "PartitionableSlot",
    pslot_rollup = "PslotRollupInformation",
    num_dynamic_slots = "NumDynamicSlots",
    dynamic_slot = "DynamicSlot",
    parent_slot_id = "ParentSlotId",
    dslot_id = "DSlotId",
    state = "State",
    activity = "Activity",
    remote_user = "RemoteUser",
    remote_owner = "RemoteOwner",
    job_id = "JobId",
    num_claims = "NumClaims",
    child_cpus = "ChildCpus",
    child_memory = "ChildMemory",
    child_disk = "ChildDisk",
    child_name = "ChildName",
    child_dslot_id = "ChildDSlotId",
    child_state = "ChildState",
    child_activity = "ChildActivity",
    child_remote_user = "ChildRemoteUser",
    child_remote_owner = "ChildRemoteOwner",
    user = "User",
    cluster_id = "ClusterId",
    proc_id = "ProcId",
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

    #[test]
    fn columns_are_the_lists_of_their_items() {
        let cases: Vec<Vec<Expr>> = vec![
            vec![],
            vec![Expr::from(3)],
            vec![Expr::from(2048); 5],
            vec![Expr::from(1), Expr::from(1), Expr::from(2)],
            vec![Expr::from(1), Expr::from(1.0)],
            vec![Expr::from("slot1_1@h"), Expr::from("slot1_1@h")],
            vec![Expr::from(0), Expr::from(false)],
            vec![Value::Undefined.to_expr(), Value::Undefined.to_expr()],
        ];
        for items in &cases {
            let listed = Expr::list(items.clone());
            // made twice: the second time from the thread's lists
            for _ in 0..2 {
                let made = column(items.iter());
                assert!(made.same_as(&listed), "{listed}");
                assert_eq!(made.to_string(), listed.to_string());
            }
        }
        // more lists than are kept: the first ones are made again
        for value in 0..=(MAX_REPEATED_LISTS as i64) {
            let items = vec![Expr::from(value); 3];
            assert!(column(items.iter()).same_as(&Expr::list(items.clone())));
        }
        let items = vec![Expr::from(0); 3];
        assert!(column(items.iter()).same_as(&Expr::list(items.clone())));
    }

    use crate::config::Config;
    use crate::startd::slots::Machine;
    use proptest::prelude::*;

    /// Every ad of `startd` as `ads` gives it, and as built afresh.
    fn ads_both_ways(startd: &mut Startd) -> (Vec<String>, Vec<String>) {
        let patched: Vec<String> = startd.ads().iter().map(|ad| ad.to_string()).collect();
        let mut fresh = Vec::new();
        for slot in &startd.layout.slots {
            let children: Vec<&DynamicSlot> = startd.dynamic.iter().filter(|d| d.slot.id == slot.id).collect();
            let policy = startd.read_policy(slot);
            fresh.push(startd.build_fresh(slot, None, &children, &policy).to_string());
            for d in children {
                let policy = startd.read_policy(&d.slot);
                fresh.push(startd.build_fresh(&d.slot, Some(&*d.job), &[], &policy).to_string());
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
