//! The simulated pool: its slots, which job holds each, and the
//! partitionable slots' dynamic slots, carved and given back by the
//! matchmaker's startd model ([`matchmaker::startd::slots::Startd`]).
//!
//! Static slots and partitionable slots live as long as the run; a
//! dynamic slot is created when a job claims part of a partitionable slot
//! and goes away when its claim ends (its resources return to the
//! partitionable slot).

use std::collections::HashMap;
use std::sync::Arc;

use classad::{ClassAd, EvalContext, EvalOptions, Semantics, Value};
use matchmaker::accountant::Accountant;
use matchmaker::config::Config;
use matchmaker::startd::slots::{Machine, Startd};
use rustc_hash::FxHashMap;

use super::scenario::{MachineType, Scenario};
use super::SimError;

/// What kind of slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotKind {
    /// A static slot (from a layout or a `condor_status` dump).
    Static,
    /// A partitionable slot of host `host`.
    Partitionable {
        /// Index of its host.
        host: usize,
        /// Its place in the host's layout.
        layout: usize,
    },
    /// A dynamic slot carved from partitionable slot `parent`.
    Dynamic {
        /// Index of its host.
        host: usize,
        /// The partitionable slot's index.
        parent: usize,
    },
}

/// Who holds a slot.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// The job (index in the run's jobs).
    pub job: usize,
    /// The job's submitter (index).
    pub submitter: usize,
    /// The job's autocluster (index).
    pub class: usize,
    /// When the claim began (for `CLAIM_WORKLIFE`).
    pub since: i64,
    /// When its job ended and the claim was given back, while the
    /// collector has not heard of it yet (the scenario's `update_delay`):
    /// until then negotiation cycles still see the slot claimed.
    pub given_back: Option<i64>,
}

/// One slot of the simulated pool (the startd's state machine of a slot is
/// `matchmaker::startd::Slot`).
#[derive(Debug, Clone)]
pub struct PoolSlot {
    /// `Name`.
    pub name: String,
    /// Its kind.
    pub kind: SlotKind,
    /// Its ad as the startd advertises it without a job (a dynamic slot's
    /// as the startd made it); shared with the cycles that see it.
    pub ad: Arc<ClassAd>,
    /// Its `SlotWeight`.
    pub weight: f64,
    /// Whether its `Rank` is an expression (so that it may prefer another
    /// job: rank preemption).
    pub rank_varies: bool,
    /// The claim, if any.
    pub claim: Option<Claim>,
    /// False for a dynamic slot that is gone.
    pub alive: bool,
    /// The startd's `MaxJobRetirementTime`, if set.
    pub retirement: Option<classad::Expr>,
}

/// What a slot's weight is computed from: its host type and resources
/// (numbers by their bits).
#[derive(Hash, PartialEq, Eq)]
struct WeightKey {
    type_key: usize,
    kind: &'static str,
    type_id: u32,
    cpus: u64,
    memory: i64,
    disk_fraction: u64,
    custom: Vec<(String, u64)>,
    fractional: bool,
}

struct Host {
    startd: Startd,
    /// The host has one partitionable slot (its claims change no other
    /// slot's ad).
    single_partitionable: bool,
    /// Hosts of one machine type share it (slots alike weigh the same).
    type_key: usize,
}

/// The pool.
pub struct Pool {
    /// Every slot ever (dead dynamic slots are reused).
    pub slots: Vec<PoolSlot>,
    /// The slots a cycle may be offered: live, unclaimed, not dynamic, with
    /// something left.
    free: SlotSet,
    /// Partitionable slots whose ad is out of date (rebuilt by [`Pool::sync`]).
    dirty: SlotSet,
    /// Some slot's `Rank` is an expression.
    pub any_rank_varies: bool,
    /// Slots whose ad is out of date (rebuilt by [`Pool::ensure_ads`]).
    stale: SlotSet,
    /// Weights of slots alike: by host type and resources.
    weights: FxHashMap<WeightKey, f64>,
    /// `MaxJobRetirementTime` of the slots being added.
    retirement: Option<classad::Expr>,
    hosts: Vec<Host>,
    free_indices: Vec<usize>,
    weigher: Accountant,
    /// The weight of every live slot (claimed or not).
    pub total_weight: f64,
    /// The weight of the claimed slots.
    pub busy_weight: f64,
    /// An empty ad, shared (what a slot holds while its ad is rebuilt).
    empty: Arc<ClassAd>,
    /// Jobs as the startds round them (see [`Startd::rounding`]), by the
    /// job ad's address (the ad held), host type and layout slot.
    roundings: FxHashMap<(usize, usize, usize), Rounding>,
}

/// A job as the startds of a host type round it for one layout slot, and
/// the verdicts of the slot's `Requirements` on it.
struct Rounding {
    /// The job ad (held, so that its address names no other ad).
    job: JobAd,
    /// The rounded job, which the dynamic slots made for it share; `None`
    /// when the rounding may depend on the slot.
    rounded: Option<Arc<ClassAd>>,
    /// Whether the slot's `Requirements` judge the rounded job by the
    /// slot's `Cpus`, `Memory` and `Disk` alone (see
    /// [`Startd::judged_by_resources`]); found out at the first claim.
    by_resources: Option<bool>,
    /// Their verdicts, by the slot's advertised `Cpus` (bits), `Memory`
    /// and `Disk`, when they judge so.
    verdicts: FxHashMap<(u64, i64, i64), bool>,
}

/// A set of slot indices, one bit each: insertion, removal and look-up
/// in constant time, iteration in increasing order (as the ordered set it
/// stands for gave them).
#[derive(Debug, Default)]
struct SlotSet {
    /// Bit `i % 64` of word `i / 64` is set when `i` is in the set.
    words: Vec<u64>,
    /// How many indices are in the set.
    len: usize,
}

impl SlotSet {
    /// Adds `i`.
    fn insert(&mut self, i: usize) {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        if self.words[word] & bit == 0 {
            self.words[word] |= bit;
            self.len += 1;
        }
    }

    /// Takes `i` out.
    fn remove(&mut self, i: usize) {
        let bit = 1u64 << (i % 64);
        if let Some(w) = self.words.get_mut(i / 64) {
            if *w & bit != 0 {
                *w &= !bit;
                self.len -= 1;
            }
        }
    }

    /// Whether `i` is in the set.
    fn contains(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    /// Whether the set is empty.
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The indices, in increasing order.
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(k, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(k * 64 + bit)
            })
        })
    }

    /// The indices in increasing order, leaving the set empty.
    fn take(&mut self) -> Vec<usize> {
        let all: Vec<usize> = self.iter().collect();
        self.words.iter_mut().for_each(|w| *w = 0);
        self.len = 0;
        all
    }
}

/// How many roundings [`Pool::carve`] keeps before it forgets them all.
const MAX_ROUNDINGS: usize = 4096;

/// From this many ads to rebuild at once, they are built in parallel.
const PARALLEL_REBUILD_FROM: usize = 16;

fn options() -> EvalOptions {
    EvalOptions::new().semantics(Semantics::Old)
}

fn rank_varies(ad: &ClassAd) -> bool {
    ad.lookup("Rank").is_some_and(|e| e.as_literal().is_none())
}

/// Host attributes kept from a `condor_status` dump's partitionable slot.
const HOST_ATTRIBUTES: &[&str] = &[
    "Arch",
    "OpSys",
    "OpSysAndVer",
    "OpSysMajorVer",
    "OpSysName",
    "OpSysVer",
    "FileSystemDomain",
    "UidDomain",
    "HasFileTransfer",
    "KFlops",
    "Mips",
    "HasDocker",
    "HasSingularity",
    "CondorVersion",
];

impl Pool {
    /// The pool of a scenario: its machine types and its `condor_status`
    /// dump. `weigher` gives slot weights (its `SLOT_WEIGHT`).
    pub fn build(scenario: &Scenario, weigher: Accountant) -> Result<Pool, SimError> {
        let mut pool = Pool {
            slots: Vec::new(),
            free: SlotSet::default(),
            dirty: SlotSet::default(),
            any_rank_varies: false,
            stale: SlotSet::default(),
            weights: FxHashMap::default(),
            retirement: None,
            hosts: Vec::new(),
            free_indices: Vec::new(),
            weigher,
            total_weight: 0.0,
            busy_weight: 0.0,
            empty: Arc::new(ClassAd::new()),
            roundings: FxHashMap::default(),
        };
        for (k, m) in scenario.machines.iter().enumerate() {
            pool.add_machines(scenario, k, m)?;
        }
        if let Some(path) = &scenario.condor_status {
            let ads = matchmaker::snapshot::read_ads(path).map_err(|e| SimError::Pool(e.to_string()))?;
            pool.add_dump(scenario, path, ads)?;
        }
        if pool.slots.is_empty() {
            return Err(SimError::Pool("the pool has no slot".into()));
        }
        Ok(pool)
    }

    fn add_machines(&mut self, scenario: &Scenario, k: usize, m: &MachineType) -> Result<(), SimError> {
        let mut text = scenario.config.clone();
        text.push_str(&format!(
            "\nNUM_CPUS = {}\nMEMORY = {}\nDISK = {}\nSTARTD_DETECT_GPUS = false\n",
            m.cpus, m.memory, m.disk
        ));
        if !m.partitionable {
            text.push_str("SLOT_TYPE_0_PARTITIONABLE = false\n");
        }
        text.push_str(&m.startd_config);
        // What is left of a partitionable slot after a claim is the
        // simulation's business (see `run`), not the startd's.
        text.push_str("\nCLAIM_PARTITIONABLE_LEFTOVERS = false\n");
        let origin = format!("{} (pool.machines[{k}])", scenario.path.display());
        let config = Config::parse_str(&text, &origin).map_err(|e| SimError::Pool(e.to_string()))?;
        let mut attributes = Vec::new();
        for (name, value) in &m.attributes {
            let expr = classad::parse_expr(value).map_err(|e| SimError::Pool(format!("{origin}: {name}: {e}")))?;
            attributes.push((name.clone(), expr));
        }
        // The machines of a type differ by name only: the first one's
        // startd is laid out, the others are made like it.
        let mut first: Option<usize> = None;
        for i in 0..m.count {
            let name = machine_name(m, i);
            let startd = match first.and_then(|h| self.hosts[h].startd.like(&name)) {
                Some(startd) => startd,
                None => {
                    first = Some(self.hosts.len());
                    let machine = Machine {
                        name,
                        cpus: m.cpus,
                        memory: m.memory,
                        disk: m.disk,
                        attributes: attributes.clone(),
                        ..Machine::default()
                    };
                    Startd::new(machine, &config).map_err(|e| SimError::Pool(format!("{origin}: {e}")))?
                }
            };
            self.add_startd(startd, &config, k)?;
        }
        Ok(())
    }

    fn add_startd(&mut self, mut startd: Startd, config: &Config, type_key: usize) -> Result<(), SimError> {
        self.retirement = config.get_expr_opt("MaxJobRetirementTime").map_err(|e| SimError::Pool(e.to_string()))?;
        let host = self.hosts.len();
        let ads = startd.ads();
        let partitionable: Vec<bool> = startd
            .layout()
            .slots
            .iter()
            .map(|s| s.kind == matchmaker::startd::slots::SlotKind::Partitionable)
            .collect();
        let single_partitionable = partitionable.iter().filter(|&&p| p).count() == 1;
        for (layout, (ad, p)) in ads.into_iter().zip(partitionable).enumerate() {
            let kind = if p { SlotKind::Partitionable { host, layout } } else { SlotKind::Static };
            self.push_slot(ad, kind);
        }
        self.hosts.push(Host { startd, type_key, single_partitionable });
        Ok(())
    }

    fn add_dump(&mut self, scenario: &Scenario, path: &std::path::Path, ads: Vec<ClassAd>) -> Result<(), SimError> {
        let config = Config::parse_str(&scenario.config, &scenario.path.display().to_string())
            .map_err(|e| SimError::Pool(e.to_string()))?;
        let retirement = config.get_expr_opt("MaxJobRetirementTime").map_err(|e| SimError::Pool(e.to_string()))?;
        let opts = options();
        for (k, ad) in ads.into_iter().enumerate() {
            let ctx = EvalContext::new(&opts).my(&ad);
            if matches!(ctx.eval_attr("DynamicSlot"), Value::Bool(true)) {
                continue; // its resources are its partitionable slot's
            }
            if matches!(ctx.eval_attr("PartitionableSlot"), Value::Bool(true)) {
                let mut machine = Machine::from_slot_ad(&ad, HOST_ATTRIBUTES);
                let int = |name: &str| match ctx.eval_attr(name) {
                    Value::Int(i) => Some(i),
                    Value::Real(r) => Some(r as i64),
                    _ => None,
                };
                machine.cpus = int("TotalSlotCpus").or(int("Cpus")).and_then(|c| u32::try_from(c).ok()).unwrap_or(1);
                machine.memory = int("TotalSlotMemory").or(int("Memory")).unwrap_or(1024);
                machine.disk = int("TotalSlotDisk").or(int("Disk")).unwrap_or(1_000_000);
                let mut text = scenario.config.clone();
                text.push_str(&format!(
                    "\nNUM_CPUS = {}\nMEMORY = {}\nDISK = {}\nSTARTD_DETECT_GPUS = false\n",
                    machine.cpus, machine.memory, machine.disk
                ));
                text.push_str("CLAIM_PARTITIONABLE_LEFTOVERS = false\n");
                let origin = format!("{}, ad {}", path.display(), k + 1);
                let config = Config::parse_str(&text, &origin).map_err(|e| SimError::Pool(e.to_string()))?;
                let startd = Startd::new(machine, &config).map_err(|e| SimError::Pool(format!("{origin}: {e}")))?;
                self.add_startd(startd, &config, scenario.machines.len() + k)?;
                continue;
            }
            let mut ad = ad;
            for attr in
                ["RemoteUser", "RemoteOwner", "AccountingGroup", "JobId", "CurrentRank", "RetirementTimeRemaining"]
            {
                ad.remove(attr);
            }
            ad.insert("State", "Unclaimed");
            ad.insert("Activity", "Idle");
            if ad.lookup("Name").is_none() {
                return Err(SimError::Pool(format!("{}: ad {}: a slot without Name", path.display(), k + 1)));
            }
            self.retirement = retirement.clone();
            self.push_slot(ad, SlotKind::Static);
        }
        Ok(())
    }

    fn push_slot(&mut self, ad: ClassAd, kind: SlotKind) -> usize {
        let name = match ad.eval_attr("Name") {
            Value::Str(s) => s.as_str().to_string(),
            _ => String::new(),
        };
        let weight = self.weigher.slot_weight(&ad);
        self.total_weight += weight;
        let varies = rank_varies(&ad);
        self.any_rank_varies |= varies;
        let slot = PoolSlot {
            name,
            kind,
            rank_varies: varies,
            ad: Arc::new(ad),
            weight,
            claim: None,
            alive: true,
            retirement: self.retirement.clone(),
        };
        let i = self.place(slot);
        self.update_free(i);
        i
    }

    /// Puts slot `i` in the free set or takes it out.
    fn update_free(&mut self, i: usize) {
        let s = &self.slots[i];
        let offerable = s.alive
            && s.claim.is_none()
            && match s.kind {
                SlotKind::Static => true,
                SlotKind::Dynamic { .. } => false,
                SlotKind::Partitionable { host, layout } => {
                    self.hosts.get(host).and_then(|h| h.startd.layout().slots.get(layout)).map_or_else(
                        || matches!(s.ad.eval_attr("Cpus"), Value::Int(c) if c > 0),
                        |slot| slot.advertised_cpus() > 0.0,
                    )
                }
            };
        if offerable {
            self.free.insert(i);
        } else {
            self.free.remove(i);
        }
    }

    /// The slots a cycle may be offered, in order.
    pub fn free(&self) -> impl Iterator<Item = usize> + '_ {
        self.free.iter()
    }

    /// Whether slot `i` may be offered.
    pub fn is_free(&self, i: usize) -> bool {
        self.free.contains(i)
    }

    /// Whether some slot may be offered.
    pub fn has_free(&self) -> bool {
        !self.free.is_empty()
    }

    /// Brings the partitionable slots that changed up to date: their
    /// weight, and the ad of those that may be offered (the others' ads
    /// wait for [`Pool::ensure_ads`]).
    pub fn sync(&mut self) {
        let mut rebuild = Vec::new();
        for i in self.dirty.take() {
            let SlotKind::Partitionable { host, layout } = self.slots[i].kind else { continue };
            let weight = self.weight_of(host, layout, None);
            self.total_weight += weight - self.slots[i].weight;
            self.slots[i].weight = weight;
            if self.free.contains(i) {
                rebuild.push(i);
            } else {
                self.stale.insert(i);
            }
        }
        self.rebuild(&rebuild);
    }

    /// Rebuilds every ad that is out of date.
    pub fn ensure_ads(&mut self) {
        self.sync();
        let stale = self.stale.take();
        self.rebuild(&stale);
    }

    /// Rebuilds the ads of slots `slots` (in order, each once): each
    /// startd builds its own, on as many threads as there are cores when
    /// there are many. A slot's earlier ad is brought up to date in place
    /// (on a copy, when a cycle still holds it) rather than built again.
    fn rebuild(&mut self, slots: &[usize]) {
        use rayon::prelude::*;
        for i in slots {
            self.stale.remove(*i);
        }
        let mut ads: Vec<(usize, Arc<ClassAd>)> =
            slots.iter().map(|&i| (i, std::mem::replace(&mut self.slots[i].ad, self.empty.clone()))).collect();
        let (pool_slots, hosts) = (&self.slots, &self.hosts);
        let build = |(i, ad): &mut (usize, Arc<ClassAd>)| {
            let (host, layout) = match pool_slots[*i].kind {
                SlotKind::Partitionable { host, layout } => (host, Some(layout)),
                SlotKind::Dynamic { host, .. } => (host, None),
                SlotKind::Static => return,
            };
            let startd = &hosts[host].startd;
            let name = &pool_slots[*i].name;
            if ad.is_empty() {
                // an ad the slot never had: built afresh
                if let Some(new) = startd.ad(name) {
                    *ad = Arc::new(new);
                }
                return;
            }
            // (copied first when a cycle still holds it)
            let earlier = Arc::make_mut(ad);
            match layout {
                Some(index) => startd.refresh_layout_ad(index, earlier),
                None => startd.refresh_ad(name, earlier),
            };
        };
        if slots.len() >= PARALLEL_REBUILD_FROM {
            ads.par_iter_mut().for_each(build);
        } else {
            ads.iter_mut().for_each(build);
        }
        for (i, ad) in ads {
            self.slots[i].ad = ad;
        }
    }

    /// The weight of a slot of host `host`: its layout slot `layout`, or
    /// its dynamic slot `dynamic`; computed from its ad once per host type
    /// and resources.
    fn weight_of(&mut self, host: usize, layout: usize, dynamic: Option<usize>) -> f64 {
        let startd = &self.hosts[host].startd;
        let slot = match dynamic {
            Some(d) => startd.dynamic_slots().get(d).map(|d| &d.slot),
            None => startd.layout().slots.get(layout),
        };
        let Some(slot) = slot else { return 0.0 };
        let key = WeightKey {
            type_key: self.hosts[host].type_key,
            kind: slot.kind.as_str(),
            type_id: slot.type_id,
            cpus: slot.cpus.to_bits(),
            memory: slot.memory,
            disk_fraction: slot.disk_fraction.to_bits(),
            custom: slot.custom.iter().map(|(k, v)| (k.clone(), v.to_bits())).collect(),
            fractional: slot.fractional_cpus,
        };
        if let Some(&w) = self.weights.get(&key) {
            return w;
        }
        let name = startd.slot_name(slot);
        let w = startd.ad(&name).map_or(0.0, |ad| self.weigher.slot_weight(&ad));
        self.weights.insert(key, w);
        w
    }

    /// Carves a dynamic slot for `job` from partitionable slot `pslot`;
    /// its index, or `None` when the job does not fit.
    pub fn carve(&mut self, pslot: usize, job: &JobAd) -> Option<usize> {
        let SlotKind::Partitionable { host, layout } = self.slots[pslot].kind else {
            return None;
        };
        // A claim takes at least 1/128 of a CPU: one on a partitionable
        // slot with less left fails, and the startd need not be asked.
        let left = self.hosts[host].startd.layout().slots.get(layout).map_or(0.0, |s| s.cpus);
        if left + 1e-9 < 1.0 / 128.0 {
            return None;
        }
        let name = self.slots[pslot].name.clone();
        // The slot's ad is the startd's own while it is not out of date,
        // and no other partitionable slot of the host changed the host's
        // figures (`TotalSlots`) since it was built.
        let current =
            self.hosts[host].single_partitionable && !self.dirty.contains(pslot) && !self.stale.contains(pslot);
        // Hosts of one type round a job alike, when the rounding reads
        // only the job.
        let key = (Arc::as_ptr(job) as usize, self.hosts[host].type_key, layout);
        if !self.roundings.get(&key).is_some_and(|r| Arc::ptr_eq(&r.job, job)) {
            if self.roundings.len() >= MAX_ROUNDINGS {
                self.roundings.clear();
            }
            let rounded = self.hosts[host].startd.rounding(&name, job).map(Arc::new);
            let rounding = Rounding { job: job.clone(), rounded, by_resources: None, verdicts: FxHashMap::default() };
            self.roundings.insert(key, rounding);
        }
        let rounding = self.roundings.get_mut(&key)?;
        let startd = &mut self.hosts[host].startd;
        let mut current = current.then(|| &*self.slots[pslot].ad);
        // Slots alike in resources judge a rounded job alike, when their
        // Requirements read nothing else: the verdict is kept.
        let mut built = None;
        let accepted = match &rounding.rounded {
            Some(rounded) => {
                let by_resources = *rounding
                    .by_resources
                    .get_or_insert_with(|| Startd::judged_by_resources(&self.slots[pslot].ad, rounded));
                let parent = startd.layout().slots.get(layout)?;
                let resources = (
                    parent.advertised_cpus().to_bits(),
                    parent.memory.max(0),
                    parent.disk(startd.layout().totals.disk),
                );
                match (by_resources, rounding.verdicts.get(&resources)) {
                    (false, _) => None,
                    (true, Some(&verdict)) => Some(verdict),
                    (true, None) => {
                        if current.is_none() {
                            built = startd.ad(&name);
                        }
                        let ad = current.or(built.as_ref())?;
                        let verdict = Startd::accepts(ad, rounded);
                        rounding.verdicts.insert(resources, verdict);
                        Some(verdict)
                    }
                }
            }
            None => None,
        };
        if current.is_none() {
            current = built.as_ref();
        }
        let dynamic_name = startd.claim_at(layout, job, rounding.rounded.as_ref(), current, accepted).ok()?;
        self.dirty.insert(pslot);
        self.update_free(pslot);
        let d = self.hosts[host].startd.dynamic_slots().len().checked_sub(1)?;
        let weight = self.weight_of(host, 0, Some(d));
        let varies = self.slots[pslot].rank_varies;
        let slot = PoolSlot {
            name: dynamic_name,
            kind: SlotKind::Dynamic { host, parent: pslot },
            rank_varies: varies,
            ad: self.empty.clone(),
            weight,
            claim: None,
            alive: true,
            retirement: self.slots[pslot].retirement.clone(),
        };
        self.total_weight += weight;
        let i = self.place(slot);
        self.stale.insert(i);
        Some(i)
    }

    /// Gives slot `i` to `claim`.
    pub fn claim(&mut self, i: usize, claim: Claim) {
        if self.slots[i].claim.is_none() {
            self.busy_weight += self.slots[i].weight;
        }
        self.slots[i].claim = Some(claim);
        self.free.remove(i);
    }

    /// Puts `slot` at a place a gone slot left, or at the end; its index.
    fn place(&mut self, slot: PoolSlot) -> usize {
        match self.free_indices.pop() {
            Some(i) => {
                self.slots[i] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                self.slots.len() - 1
            }
        }
    }

    /// Ends the claim on slot `i`: a static slot becomes free, a dynamic
    /// slot goes away and its resources return to its partitionable slot.
    pub fn release(&mut self, i: usize) {
        if self.slots[i].claim.take().is_some() {
            self.busy_weight -= self.slots[i].weight;
        }
        if let SlotKind::Dynamic { host, parent } = self.slots[i].kind {
            let name = std::mem::take(&mut self.slots[i].name);
            // A slot the startd made: it knows it.
            let _ = self.hosts[host].startd.release(&name);
            self.total_weight -= self.slots[i].weight;
            self.slots[i].alive = false;
            self.slots[i].ad = self.empty.clone();
            self.free_indices.push(i);
            self.stale.remove(i);
            self.dirty.insert(parent);
            self.update_free(parent);
        } else {
            self.update_free(i);
        }
    }

    /// The ad of claimed slot `i` as the collector has it: `Claimed`,
    /// `Busy`, who runs there (`RemoteUser`, `AccountingGroup`), how the
    /// slot ranks the job (`CurrentRank`) and, with a
    /// `MaxJobRetirementTime`, the retirement left to a job that has run
    /// `ran` seconds (`RetirementTimeRemaining`: the negotiator leaves
    /// such slots alone unless `NEGOTIATOR_CONSIDER_EARLY_PREEMPTION`).
    pub fn claimed_ad(&self, i: usize, submitter: &str, user: &str, job: &ClassAd, ran: i64) -> ClassAd {
        let s = &self.slots[i];
        let mut ad = ClassAd::new();
        ad.chain_to(s.ad.clone());
        ad.insert("State", "Claimed");
        ad.insert("Activity", "Busy");
        ad.insert("RemoteUser", user);
        ad.insert("RemoteOwner", user);
        if submitter != user {
            ad.insert("AccountingGroup", submitter);
        }
        let opts = options();
        let rank = match EvalContext::new(&opts).my(&s.ad).target(job).eval_attr("Rank") {
            Value::Int(i) => i as f64,
            Value::Real(r) => r,
            _ => 0.0,
        };
        ad.insert("CurrentRank", rank);
        if let Some(limits) = job.lookup("ConcurrencyLimits") {
            // The negotiator counts the limits running jobs use.
            ad.insert("ConcurrencyLimits", limits.clone());
        }
        if let Some(expr) = &s.retirement {
            let most = match EvalContext::new(&opts).my(&s.ad).target(job).eval(expr) {
                Value::Int(i) => i,
                Value::Real(r) if r.is_finite() => r as i64,
                _ => 0,
            };
            ad.insert("RetirementTimeRemaining", (most - ran.max(0)).max(0));
        }
        ad
    }
}

/// The host name of machine `i` (from 0) of machine type `m`: its name
/// and a number from 1, at least four digits (`node0001`).
pub fn machine_name(m: &MachineType, i: u32) -> String {
    let digits = (m.count.max(1) as f64).log10().floor() as usize + 1;
    let width = digits.max(4);
    format!("{}{:0width$}", m.name, u64::from(i) + 1)
}

/// An ad standing for all the slots a submitter holds that the cycle need
/// not see one by one: their total weight, charged to the submitter, and
/// nothing a job can match. Named by the submitter and the weight, so that
/// the accountant sees a new claim whenever the weight changes.
pub fn placeholder(submitter: &str, user: &str, weight: f64) -> ClassAd {
    let mut ad = ClassAd::new();
    ad.insert("Name", format!("claims-of-{submitter}-{weight}"));
    ad.insert("MyType", "Machine");
    ad.insert("State", "Claimed");
    ad.insert("Activity", "Busy");
    ad.insert("RemoteUser", user);
    if submitter != user {
        ad.insert("AccountingGroup", submitter);
    }
    ad.insert("SlotWeight", weight);
    ad.insert("Cpus", weight);
    ad.insert("Start", false);
    ad.insert("Requirements", false);
    ad.insert("Rank", 0.0);
    ad
}

/// The job ads of the simulation are shared among the jobs of an
/// autocluster.
pub type JobAd = Arc<ClassAd>;

impl Pool {
    /// Checks that no machine hands out more than it has: each
    /// partitionable slot's CPUs and memory plus those of its dynamic
    /// slots are the machine's, the busy weight is that of the claimed
    /// slots and the total that of the live ones.
    pub fn check(&mut self) -> Result<(), String> {
        self.ensure_ads();
        let number = |ad: &ClassAd, name: &str| match ad.eval_attr(name) {
            Value::Int(i) => i as f64,
            Value::Real(r) => r,
            _ => 0.0,
        };
        let mut used: HashMap<usize, (f64, f64)> = HashMap::new();
        let (mut busy, mut total) = (0.0, 0.0);
        for s in self.slots.iter().filter(|s| s.alive) {
            total += s.weight;
            if s.claim.is_some() {
                busy += s.weight;
            }
            if let SlotKind::Dynamic { parent, .. } = s.kind {
                let u = used.entry(parent).or_default();
                u.0 += number(&s.ad, "Cpus");
                u.1 += number(&s.ad, "Memory");
            }
        }
        for (i, s) in self.slots.iter().enumerate() {
            if let (true, SlotKind::Partitionable { .. }) = (s.alive, s.kind) {
                if self.free.contains(i) != (number(&s.ad, "Cpus") > 0.0) {
                    return Err(format!("{}: in the free set or out of it by mistake", s.name));
                }
                let (cpus, memory) = used.get(&i).copied().unwrap_or_default();
                let (left_cpus, left_memory) = (number(&s.ad, "Cpus"), number(&s.ad, "Memory"));
                let (all_cpus, all_memory) = (number(&s.ad, "TotalSlotCpus"), number(&s.ad, "TotalSlotMemory"));
                if left_cpus < 0.0
                    || left_memory < 0.0
                    || cpus + left_cpus > all_cpus
                    || memory + left_memory > all_memory
                {
                    return Err(format!(
                        "{}: dynamic slots hold {cpus} CPUs and {memory} MB, {left_cpus} and {left_memory} are left, of {all_cpus} and {all_memory}",
                        s.name
                    ));
                }
            }
        }
        if (busy - self.busy_weight).abs() > 1e-6 || (total - self.total_weight).abs() > 1e-6 {
            return Err(format!(
                "busy weight {} and total {} counted, the slots say {busy} and {total}",
                self.busy_weight, self.total_weight
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// A slot set holds, and gives in order, what an ordered set of
        /// the same insertions and removals holds.
        #[test]
        fn a_slot_set_is_an_ordered_set(ops in proptest::collection::vec((0u8..3, 0usize..300), 0..200)) {
            let (mut set, mut model) = (SlotSet::default(), BTreeSet::new());
            for (op, i) in ops {
                match op {
                    0 => {
                        set.insert(i);
                        model.insert(i);
                    }
                    1 => {
                        set.remove(i);
                        model.remove(&i);
                    }
                    _ => {
                        prop_assert_eq!(set.take(), std::mem::take(&mut model).into_iter().collect::<Vec<_>>());
                    }
                }
                prop_assert_eq!(set.contains(i), model.contains(&i));
                prop_assert_eq!(set.is_empty(), model.is_empty());
                prop_assert_eq!(set.iter().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
            }
        }
    }
}
