//! A startd's slots over time: the layout, plus the dynamic slots claims
//! carve from partitionable slots.
//!
//! ```
//! use classad::{ClassAd, Value};
//! use matchmaker::config::Config;
//! use matchmaker::startd::slots::{Machine, Startd};
//!
//! let config = Config::parse_str("NUM_CPUS = 8\nMEMORY = 16384\nSTARTD_DETECT_GPUS = false\n", "startd.conf")?;
//! let machine = Machine { name: "node1".into(), disk: 8_000_000, ..Machine::default() };
//! let mut startd = Startd::new(machine, &config)?;
//! let ads = startd.ads();
//! assert_eq!(ads.len(), 1); // one partitionable slot by default
//! assert_eq!(ads[0].eval_attr("Name"), Value::Str("slot1@node1".into()));
//!
//! let job: ClassAd = "[ RequestCpus = 3; RequestMemory = 1000; RequestDisk = 100000 ]".parse()?;
//! let claim = startd.claim("slot1@node1", &job)?;
//! assert_eq!(claim.name, "slot1_1@node1");
//! let d = startd.ad(&claim.name).expect("the new dynamic slot");
//! assert_eq!(d.eval_attr("Memory"), Value::Int(1024)); // rounded up to a multiple of 128
//! let p = startd.ad("slot1@node1").expect("the partitionable slot");
//! assert_eq!(p.eval_attr("Cpus"), Value::Int(5));
//! startd.release(&claim.name)?;
//! assert_eq!(startd.ad("slot1@node1").map(|p| p.eval_attr("Cpus")), Some(Value::Int(8)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use classad::ClassAd;

use std::sync::Arc;

use super::ad::SlotAds;
use super::attrs::CustomNames;
use super::children::{ChildRow, DynamicSlot};
use super::dynamic::{self, carve, has_requests, Carved, DynamicClaim, Parent};
use super::layout::Layout;
use super::naming::{host_name, Naming};
use super::resources::with_detected;
use super::slot_config::Policies;
use super::{Machine, SlotError, SlotKind, SlotResources};
use crate::config::Config;

/// A startd: a machine, its configuration, its slots.
#[derive(Debug, Clone)]
pub struct Startd {
    pub(crate) machine: Machine,
    pub(crate) config: Config,
    pub(crate) layout: Layout,
    pub(crate) dynamic: Vec<DynamicSlot>,
    pub(crate) host: String,
    pub(crate) warnings: Vec<String>,
    /// What the configuration says of the slots, read once.
    pub(crate) policies: Policies,
    /// The attribute names of each custom resource, in the machine's order.
    pub(crate) custom_names: Arc<[CustomNames]>,
    /// Whether the ad of some slot of the layout has an attribute a claim
    /// reads as a request (`RequestCpus`, `_condor_RequestMemory`, ...):
    /// unless it has, a claim need not look for them there. (The
    /// attributes a layout slot's ad has do not change over its life.)
    pub(crate) requests_in_slot_ads: bool,
}

impl Startd {
    /// Lays out `machine` as `config` asks (see [`Layout::new`]).
    pub fn new(machine: Machine, config: &Config) -> Result<Startd, SlotError> {
        let config = with_detected(&machine, config)?;
        let layout = Layout::new(&machine, &config)?;
        let host = host_name(&config, &machine);
        let policies = Policies::new(&layout);
        let custom_names = layout.totals.custom.iter().map(|c| CustomNames::new(&c.name)).collect();
        let mut startd = Startd {
            machine,
            config,
            layout,
            dynamic: Vec::new(),
            host,
            warnings: Vec::new(),
            policies,
            custom_names,
            requests_in_slot_ads: true,
        };
        // (which also reports unparsable STARTD_ATTRS values once)
        startd.requests_in_slot_ads = startd.ads().iter().any(has_requests);
        Ok(startd)
    }

    /// A startd as [`new`](Startd::new) makes it for this startd's machine
    /// named `name` instead, with this startd's configuration: the layout
    /// and what the configuration says of the slots are taken over rather
    /// than worked out again (a pool of many machines alike, as a
    /// simulation builds, saves that work). `None` when this startd has
    /// dynamic slots (its layout is then no longer as laid out).
    ///
    /// ```
    /// use classad::Value;
    /// use matchmaker::config::Config;
    /// use matchmaker::startd::slots::{Machine, Startd};
    ///
    /// let config = Config::parse_str("NUM_CPUS = 4\nMEMORY = 8192\nSTARTD_DETECT_GPUS = false\n", "startd.conf")?;
    /// let mut first = Startd::new(Machine { name: "n1".into(), ..Machine::default() }, &config)?;
    /// let mut second = first.like("n2").expect("no claim yet");
    /// let ads = second.ads();
    /// assert_eq!(ads[0].eval_attr("Name"), Value::Str("slot1@n2".into()));
    /// assert_eq!(ads[0].eval_attr("Cpus"), Value::Int(4));
    /// let job: classad::ClassAd = "[ RequestCpus = 1; RequestMemory = 1000; RequestDisk = 1000 ]".parse()?;
    /// first.claim("slot1@n1", &job)?;
    /// assert!(first.like("n3").is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn like(&self, name: &str) -> Option<Startd> {
        if !self.dynamic.is_empty() {
            return None;
        }
        let machine = Machine { name: name.to_string(), ..self.machine.clone() };
        let host = host_name(&self.config, &machine);
        Some(Startd {
            machine,
            config: self.config.clone(),
            layout: self.layout.clone(),
            dynamic: Vec::new(),
            host,
            // the policies' warnings: those of the configuration alone
            warnings: self.warnings.clone(),
            policies: self.policies.renamed(&self.layout),
            custom_names: self.custom_names.clone(),
            // (the same attributes, under another name)
            requests_in_slot_ads: self.requests_in_slot_ads,
        })
    }

    /// The machine.
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// The layout: totals and the static and partitionable slots.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The dynamic slots, in creation order.
    pub fn dynamic_slots(&self) -> &[DynamicSlot] {
        &self.dynamic
    }

    /// Configuration values that could not be published (a `STARTD_ATTRS`
    /// value that is not a ClassAd expression), as the startd logs them.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The name of a slot: `slot<N>@host`, `slot<N>_<M>@host` for a
    /// dynamic slot (the prefix is `SLOT_TYPE_<N>_NAME_PREFIX`, else
    /// `STARTD_RESOURCE_PREFIX`, else `slot`).
    pub fn slot_name(&self, slot: &SlotResources) -> String {
        self.naming().slot_name(slot)
    }

    /// Whether `name` is the name of `slot` (as [`slot_name`](Self::slot_name)
    /// gives it), without building the name.
    #[cfg(test)]
    pub(crate) fn is_named(&self, slot: &SlotResources, name: &str) -> bool {
        self.naming().is_named(slot, name)
    }

    /// Finds a static or partitionable slot by name (`slot1@host`), by
    /// short name (`slot1`) or by id (`1`).
    pub(crate) fn find_slot(&self, key: &str) -> Option<usize> {
        self.naming().find_slot(&self.layout.slots, key)
    }

    /// What the names of the slots are made of.
    fn naming(&self) -> Naming<'_> {
        Naming { config: &self.config, policies: &self.policies, host: &self.host }
    }

    /// What building the slots' ads reads of the startd, now.
    pub(crate) fn slot_ads(&self) -> SlotAds<'_> {
        SlotAds {
            machine: &self.machine,
            config: &self.config,
            layout: &self.layout,
            policies: &self.policies,
            custom_names: &self.custom_names,
            naming: self.naming(),
            total_slots: self.layout.slots.len() + self.dynamic.len(),
        }
    }

    /// The slot ads, static and partitionable slots by id, each followed by
    /// its dynamic slots.
    pub fn ads(&mut self) -> Vec<ClassAd> {
        let mut warnings = Vec::new();
        let mut out = Vec::new();
        for i in 0..self.layout.slots.len() {
            let slot = &self.layout.slots[i];
            let children: Vec<&DynamicSlot> = self.dynamic.iter().filter(|d| d.slot.id == slot.id).collect();
            out.push(self.slot_ads().build_ad(slot, None, &children, &mut warnings));
            for d in children {
                out.push(self.slot_ads().build_ad(&d.slot, Some(&*d.job), &[], &mut warnings));
            }
        }
        warnings.sort();
        warnings.dedup();
        self.warnings = warnings;
        out
    }

    /// The ad of one slot, by name.
    pub fn ad(&self, name: &str) -> Option<ClassAd> {
        let mut warnings = Vec::new();
        if let Some(i) = self.find_slot(name) {
            let slot = &self.layout.slots[i];
            return Some(
                self.with_children(slot.id, |children| self.slot_ads().build_ad(slot, None, children, &mut warnings)),
            );
        }
        self.dynamic
            .iter()
            .find(|d| d.is_named(name))
            .map(|d| self.slot_ads().build_ad(&d.slot, Some(&*d.job), &[], &mut warnings))
    }

    /// Makes `ad`, an ad of slot `name` this startd gave earlier
    /// ([`ad`](Startd::ad), [`ads`](Startd::ads)), the slot's ad now, as
    /// [`ad`](Startd::ad) would give it: most of the time by setting again,
    /// in place, the few attributes that change over the slot's life,
    /// which spares a caller that keeps its own copy of each ad (as a
    /// simulation does) building and dropping whole ads. False, and `ad`
    /// untouched, when the startd has no slot `name`. An ad that is not an
    /// earlier ad of the slot may keep attributes, or values of them, the
    /// slot's ad lacks.
    ///
    /// ```
    /// use classad::{ClassAd, Value};
    /// use matchmaker::config::Config;
    /// use matchmaker::startd::slots::{Machine, Startd};
    ///
    /// let config = Config::parse_str("NUM_CPUS = 4\nMEMORY = 8192\nSTARTD_DETECT_GPUS = false\n", "startd.conf")?;
    /// let mut startd = Startd::new(Machine { name: "n1".into(), ..Machine::default() }, &config)?;
    /// let mut kept = startd.ad("slot1@n1").expect("the partitionable slot");
    /// let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 1000; RequestDisk = 1000 ]".parse()?;
    /// startd.claim("slot1@n1", &job)?;
    /// assert!(startd.refresh_ad("slot1@n1", &mut kept));
    /// assert_eq!(kept.eval_attr("Cpus"), Value::Int(3));
    /// assert_eq!(Some(kept.to_string()), startd.ad("slot1@n1").map(|ad| ad.to_string()));
    /// assert!(!startd.refresh_ad("slot9@n1", &mut kept));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn refresh_ad(&self, name: &str, ad: &mut ClassAd) -> bool {
        if let Some(i) = self.find_slot(name) {
            return self.refresh_layout_ad(i, ad);
        }
        match self.dynamic.iter().find(|d| d.is_named(name)) {
            Some(d) => {
                self.slot_ads().refresh_built_ad(ad, &d.slot, Some(&*d.job), &[]);
                true
            }
            None => false,
        }
    }

    /// As [`refresh_ad`](Startd::refresh_ad), for the static or
    /// partitionable slot at place `index` of the
    /// [`layout`](Startd::layout) (a caller that knows where the slot is,
    /// as a simulation does, saves the look-up by name). False, and `ad`
    /// untouched, when the layout has no such place.
    ///
    /// ```
    /// use classad::{ClassAd, Value};
    /// use matchmaker::config::Config;
    /// use matchmaker::startd::slots::{Machine, Startd};
    ///
    /// let config = Config::parse_str("NUM_CPUS = 4\nMEMORY = 8192\nSTARTD_DETECT_GPUS = false\n", "startd.conf")?;
    /// let mut startd = Startd::new(Machine { name: "n1".into(), ..Machine::default() }, &config)?;
    /// let mut kept = startd.ad("slot1@n1").expect("the partitionable slot");
    /// let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 1000; RequestDisk = 1000 ]".parse()?;
    /// startd.claim("slot1@n1", &job)?;
    /// assert!(startd.refresh_layout_ad(0, &mut kept));
    /// assert_eq!(kept.eval_attr("NumDynamicSlots"), Value::Int(1));
    /// assert_eq!(Some(kept.to_string()), startd.ad("slot1@n1").map(|ad| ad.to_string()));
    /// assert!(!startd.refresh_layout_ad(1, &mut kept));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn refresh_layout_ad(&self, index: usize, ad: &mut ClassAd) -> bool {
        let Some(slot) = self.layout.slots.get(index) else { return false };
        self.with_children(slot.id, |children| self.slot_ads().refresh_built_ad(ad, slot, None, children));
        true
    }

    /// `f` of the dynamic slots of the slot with id `id`, in creation
    /// order (gathered on the stack when they are not many).
    pub(crate) fn with_children<R>(&self, id: u32, f: impl FnOnce(&[&DynamicSlot]) -> R) -> R {
        let mut mine = self.dynamic.iter().filter(|d| d.slot.id == id);
        let Some(first) = mine.next() else { return f(&[]) };
        let mut gathered = [first; CHILDREN_ON_STACK];
        let mut len = 1;
        for d in mine {
            if len == CHILDREN_ON_STACK {
                let all: Vec<&DynamicSlot> = self.dynamic.iter().filter(|d| d.slot.id == id).collect();
                return f(&all);
            }
            gathered[len] = d;
            len += 1;
        }
        f(&gathered[..len])
    }

    /// Whether the `Requirements` of `slot_ad`, the ad of a partitionable
    /// slot, accept `job`, as a claim judges it (the slot's ad as MY, the
    /// job as TARGET, HTCondor's old semantics).
    ///
    /// ```
    /// use classad::ClassAd;
    /// use matchmaker::config::Config;
    /// use matchmaker::startd::slots::{Machine, Startd};
    ///
    /// let config = Config::parse_str("NUM_CPUS = 4\nMEMORY = 8192\nSTARTD_DETECT_GPUS = false\n", "startd.conf")?;
    /// let startd = Startd::new(Machine { name: "n1".into(), ..Machine::default() }, &config)?;
    /// let slot = startd.ad("slot1@n1").expect("the partitionable slot");
    /// let small: ClassAd = "[ RequestCpus = 1; RequestMemory = 1024; RequestDisk = 1000 ]".parse()?;
    /// let big: ClassAd = "[ RequestCpus = 8; RequestMemory = 1024; RequestDisk = 1000 ]".parse()?;
    /// assert!(Startd::accepts(&slot, &small));
    /// assert!(!Startd::accepts(&slot, &big));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn accepts(slot_ad: &ClassAd, job: &ClassAd) -> bool {
        dynamic::accepts(slot_ad, job)
    }

    /// Whether the `Requirements` of `slot_ad`, an ad of a partitionable
    /// slot, judge `job` by nothing but the slot's `Cpus`, `Memory` and
    /// `Disk`: of the slot they read no other attribute than its policy's
    /// `Start` and `WithinResourceLimits` (whose text is the
    /// configuration's), of the job only attributes that are literals,
    /// and they call no function but plain arithmetic ones (`ifThenElse`,
    /// `quantize`, ...). Every slot of the same type, on startds of the
    /// same configuration and host attributes, that has the same `Cpus`,
    /// `Memory` and `Disk` then gives the job the same verdict
    /// ([`accepts`](Startd::accepts)), which a caller may keep and give
    /// to [`claim_at`](Startd::claim_at).
    ///
    /// ```
    /// use classad::ClassAd;
    /// use matchmaker::config::Config;
    /// use matchmaker::startd::slots::{Machine, Startd};
    ///
    /// let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 1024; RequestDisk = 1000 ]".parse()?;
    /// let machine = Machine { name: "n1".into(), ..Machine::default() };
    /// let plain = Config::parse_str("NUM_CPUS = 4\nSTARTD_DETECT_GPUS = false\n", "startd.conf")?;
    /// let slot = Startd::new(machine.clone(), &plain)?.ad("slot1@n1").expect("the partitionable slot");
    /// assert!(Startd::judged_by_resources(&slot, &job));
    /// // a START that reads the slot's other attributes
    /// let busy = Config::parse_str("NUM_CPUS = 4\nSTARTD_DETECT_GPUS = false\nSTART = NumDynamicSlots < 2\n", "startd.conf")?;
    /// let slot = Startd::new(machine, &busy)?.ad("slot1@n1").expect("the partitionable slot");
    /// assert!(!Startd::judged_by_resources(&slot, &job));
    /// // a request that reads the slot
    /// let greedy: ClassAd = "[ RequestCpus = 1; RequestMemory = TARGET.Memory; RequestDisk = 1000 ]".parse()?;
    /// assert!(!Startd::judged_by_resources(&slot, &greedy));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn judged_by_resources(slot_ad: &ClassAd, job: &ClassAd) -> bool {
        dynamic::judged_by_resources(slot_ad, job)
    }

    /// Creates a dynamic slot of partitionable slot `slot` (a name such as
    /// `slot1@host`, `slot1`, or an id) for `job`. Errors: no such slot, not
    /// partitionable, its `Requirements` refuse the job, a request is
    /// missing, or the slot has not enough left.
    pub fn claim(&mut self, slot: &str, job: &ClassAd) -> Result<DynamicClaim, SlotError> {
        self.claim_given(slot, job, None, None)
    }

    /// As [`claim`](Startd::claim), given the partitionable slot's ad as
    /// [`ad`](Startd::ad) would give it now, which the startd then need not
    /// build again (a caller that keeps the ad of each slot up to date, as
    /// a simulation does, saves that work). An ad that is not the slot's
    /// current one gives the claim a wrong view of the slot.
    ///
    /// ```
    /// use classad::Value;
    /// use matchmaker::config::Config;
    /// use matchmaker::startd::slots::{Machine, Startd};
    ///
    /// let config = Config::parse_str("NUM_CPUS = 4\nMEMORY = 8192\nSTARTD_DETECT_GPUS = false\n", "startd.conf")?;
    /// let mut startd = Startd::new(Machine { name: "n1".into(), ..Machine::default() }, &config)?;
    /// let current = startd.ad("slot1@n1").expect("the partitionable slot");
    /// let job: classad::ClassAd = "[ RequestCpus = 1; RequestMemory = 1000; RequestDisk = 1000 ]".parse()?;
    /// let claim = startd.claim_with_ad("slot1@n1", &job, &current)?;
    /// assert_eq!(claim.name, "slot1_1@n1");
    /// assert_eq!(startd.ad("slot1@n1").map(|p| p.eval_attr("Cpus")), Some(Value::Int(3)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn claim_with_ad(&mut self, slot: &str, job: &ClassAd, current: &ClassAd) -> Result<DynamicClaim, SlotError> {
        self.claim_given(slot, job, Some(current), None)
    }

    /// The job with its requests rounded as a claim on partitionable slot
    /// `slot` rounds them (`MODIFY_REQUEST_EXPR_*`), when the rounding
    /// reads nothing but the job: no attribute of the slot, no function
    /// but plain arithmetic ones (`quantize`, `ifThenElse`, `min`, ...).
    /// Every slot of the same type, on a startd with the same
    /// configuration, then rounds the job so, and a caller that claims
    /// many slots for one job may round it once and give the result to
    /// [`claim_rounded`](Startd::claim_rounded). `None` when the rounding
    /// may depend on the slot, or there is no such partitionable slot.
    ///
    /// ```
    /// use classad::{ClassAd, Value};
    /// use matchmaker::config::Config;
    /// use matchmaker::startd::slots::{Machine, Startd};
    ///
    /// let config = Config::parse_str("NUM_CPUS = 4\nMEMORY = 8192\nSTARTD_DETECT_GPUS = false\n", "startd.conf")?;
    /// let mut startd = Startd::new(Machine { name: "n1".into(), ..Machine::default() }, &config)?;
    /// let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 1000; RequestDisk = 1000 ]".parse()?;
    /// let rounded = startd.rounding("slot1@n1", &job).expect("the default rounding reads only the job");
    /// assert_eq!(rounded.eval_attr("RequestMemory"), Value::Int(1024));
    /// let claim = startd.claim_rounded("slot1@n1", &job, &rounded, None)?;
    /// assert_eq!(claim.job.eval_attr("RequestMemory"), Value::Int(1024));
    /// // a rounding that reads the slot's ad is not done ahead
    /// let config = Config::parse_str("MODIFY_REQUEST_EXPR_REQUESTMEMORY = TARGET.Memory\n", "startd.conf")?;
    /// let startd = Startd::new(Machine { name: "n2".into(), ..Machine::default() }, &config)?;
    /// assert!(startd.rounding("slot1@n2", &job).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rounding(&self, slot: &str, job: &ClassAd) -> Option<ClassAd> {
        let index = self.find_slot(slot)?;
        let parent = &self.layout.slots[index];
        if parent.kind != SlotKind::Partitionable {
            return None;
        }
        let knobs = self.policies.knobs(&self.config, parent.type_id);
        dynamic::rounding(&knobs, job)
    }

    /// As [`claim_with_ad`](Startd::claim_with_ad) (`current` given) or
    /// [`claim`](Startd::claim), given the job as
    /// [`rounding`](Startd::rounding) rounded it for a slot of the same
    /// type and configuration, which the claim then need not round again.
    /// A `rounded` made otherwise gives the claim wrong requests.
    pub fn claim_rounded(
        &mut self,
        slot: &str,
        job: &ClassAd,
        rounded: &ClassAd,
        current: Option<&ClassAd>,
    ) -> Result<DynamicClaim, SlotError> {
        self.claim_given(slot, job, current, Some(rounded))
    }

    /// As [`claim_rounded`](Startd::claim_rounded) (`rounded` given),
    /// [`claim_with_ad`](Startd::claim_with_ad) (`current` given) or
    /// [`claim`](Startd::claim), of the partitionable slot at place
    /// `index` of the [`layout`](Startd::layout) rather than by name (a
    /// caller that knows where the slot is, as a simulation does, saves the
    /// look-up), and giving the new dynamic slot's name only: the job as
    /// the startd kept it is that of the last of
    /// [`dynamic_slots`](Startd::dynamic_slots), and no leftovers ad is
    /// built (whatever `CLAIM_PARTITIONABLE_LEFTOVERS` says). `accepted`,
    /// with `rounded`, is whether the slot's `Requirements` accept
    /// `rounded` when the caller knows it (see
    /// [`judged_by_resources`](Startd::judged_by_resources)); the claim
    /// then need not evaluate them. A wrong `accepted` gives a wrong claim.
    /// A `rounded` the claim takes is kept as it is, shared with the
    /// caller (no copy for each dynamic slot).
    ///
    /// ```
    /// use classad::{ClassAd, Value};
    /// use matchmaker::config::Config;
    /// use matchmaker::startd::slots::{Machine, Startd};
    ///
    /// let config = Config::parse_str("NUM_CPUS = 4\nMEMORY = 8192\nSTARTD_DETECT_GPUS = false\n", "startd.conf")?;
    /// let mut startd = Startd::new(Machine { name: "n1".into(), ..Machine::default() }, &config)?;
    /// let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 1000; RequestDisk = 1000 ]".parse()?;
    /// let name = startd.claim_at(0, &job, None, None, None)?;
    /// assert_eq!(name, "slot1_1@n1");
    /// let kept = startd.dynamic_slots().last().map(|d| d.job.eval_attr("RequestMemory"));
    /// assert_eq!(kept, Some(Value::Int(1024)));
    /// assert_eq!(startd.ad("slot1@n1").map(|p| p.eval_attr("Cpus")), Some(Value::Int(3)));
    /// assert!(startd.claim_at(1, &job, None, None, None).is_err()); // no second slot
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn claim_at(
        &mut self,
        index: usize,
        job: &ClassAd,
        rounded: Option<&Arc<ClassAd>>,
        current: Option<&ClassAd>,
        accepted: Option<bool>,
    ) -> Result<String, SlotError> {
        if index >= self.layout.slots.len() {
            return Err(SlotError::NoSuchSlot(format!("slot {} of the layout", index + 1)));
        }
        self.carve_at(index, job, current, rounded, accepted.filter(|_| rounded.is_some()))
    }

    fn claim_given(
        &mut self,
        slot: &str,
        job: &ClassAd,
        current: Option<&ClassAd>,
        rounded: Option<&ClassAd>,
    ) -> Result<DynamicClaim, SlotError> {
        let index = self.find_slot(slot).ok_or_else(|| SlotError::NoSuchSlot(slot.to_string()))?;
        let rounded = rounded.map(|r| Arc::new(r.clone()));
        let name = self.carve_at(index, job, current, rounded.as_ref(), None)?;
        let type_id = self.layout.slots[index].type_id;
        let leftovers =
            if self.policies.knobs(&self.config, type_id).leftovers { Some(self.layout_ad(index)) } else { None };
        let job = self.dynamic.last().map(|d| ClassAd::clone(&d.job)).unwrap_or_default();
        Ok(DynamicClaim { name, job, leftovers })
    }

    /// The ad of layout slot `index` (which must be in the layout).
    fn layout_ad(&self, index: usize) -> ClassAd {
        let slot = &self.layout.slots[index];
        self.with_children(slot.id, |children| self.slot_ads().build_ad(slot, None, children, &mut Vec::new()))
    }

    /// Carves a dynamic slot of layout slot `index` (in the layout) for
    /// `job`; its name. `accepted`: the verdict of the slot's
    /// `Requirements` on `rounded`, when known.
    fn carve_at(
        &mut self,
        index: usize,
        job: &ClassAd,
        current: Option<&ClassAd>,
        rounded: Option<&Arc<ClassAd>>,
        accepted: Option<bool>,
    ) -> Result<String, SlotError> {
        let parent = &self.layout.slots[index];
        if parent.kind != SlotKind::Partitionable {
            return Err(SlotError::NotPartitionable(self.slot_name(parent)));
        }
        let built;
        let parent_ad = match current {
            Some(ad) => ad,
            None => {
                built = self.layout_ad(index);
                &built
            }
        };
        let knobs = self.policies.knobs(&self.config, parent.type_id);
        let from = Parent {
            slot: parent,
            ad: parent_ad,
            knobs: &knobs,
            consumption_policy: self.policies.has_consumption_policy(&self.config, parent),
            totals: &self.layout.totals,
            dynamic: &self.dynamic,
            requests_in_slot_ads: self.requests_in_slot_ads,
            naming: self.naming(),
        };
        let Carved { slot: dslot, request, takes_modified } = carve(&from, job, rounded.map(|r| &**r), accepted)?;
        let name = self.slot_name(&dslot);
        let row = ChildRow::new(&dslot, &name, &request, &self.layout.totals);
        // (the rounded job given is kept as it is)
        let request = match rounded.filter(|_| takes_modified) {
            Some(shared) => shared.clone(),
            None => Arc::new(request.into_owned()),
        };
        let parent = &mut self.layout.slots[index];
        parent.cpus -= dslot.cpus;
        parent.memory -= dslot.memory;
        parent.disk_fraction -= dslot.disk_fraction;
        if let (Some(p), Some(d)) = (parent.swap_fraction, dslot.swap_fraction) {
            parent.swap_fraction = Some(p - d);
        }
        for (name, v) in parent.custom.iter_mut() {
            *v -= dslot.custom.get(name).copied().unwrap_or(0.0);
        }
        self.dynamic.push(DynamicSlot { slot: dslot, job: request, row });
        Ok(name)
    }

    /// Ends the claim of dynamic slot `name`: the slot goes away and its
    /// resources and device ids return to its partitionable slot.
    pub fn release(&mut self, name: &str) -> Result<(), SlotError> {
        let pos = self
            .dynamic
            .iter()
            .position(|d| d.is_named(name))
            .ok_or_else(|| SlotError::NoSuchSlot(name.to_string()))?;
        // its device ids become free again with its removal
        let d = self.dynamic.remove(pos).slot;
        let parent = self
            .layout
            .slots
            .iter_mut()
            .find(|s| s.id == d.id)
            .ok_or_else(|| SlotError::NoSuchSlot(format!("parent of {name}")))?;
        parent.cpus += d.cpus;
        parent.memory += d.memory;
        parent.disk_fraction += d.disk_fraction;
        if let (Some(p), Some(s)) = (parent.swap_fraction, d.swap_fraction) {
            parent.swap_fraction = Some(p + s);
        }
        for (res, v) in &d.custom {
            *parent.custom.entry(res.clone()).or_insert(0.0) += v;
        }
        Ok(())
    }
}

/// How many dynamic slots [`Startd::with_children`] gathers on the stack.
const CHILDREN_ON_STACK: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ad of `startd`, as text.
    fn ads(startd: &mut Startd) -> Vec<String> {
        startd.ads().iter().map(|ad| ad.to_string()).collect()
    }

    #[test]
    fn a_partitionable_slot_with_many_dynamic_slots_lists_them_all() -> Result<(), Box<dyn std::error::Error>> {
        let config = Config::parse_str("STARTD_DETECT_GPUS = false\n", "t.conf")?;
        let machine = Machine { name: "h".into(), cpus: 40, memory: 40 * 1024, disk: 8_000_000, ..Machine::default() };
        let mut startd = Startd::new(machine, &config)?;
        let mut kept = startd.ad("slot1@h").ok_or("the partitionable slot")?;
        let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 100; RequestDisk = 1 ]".parse()?;
        for k in 1..=(CHILDREN_ON_STACK + 4) {
            startd.claim("slot1", &job)?;
            assert!(startd.refresh_layout_ad(0, &mut kept));
            // as ads() lists them, gathered otherwise
            assert_eq!(Some(kept.to_string()), ads(&mut startd).first().cloned());
            assert_eq!(kept.eval_attr("NumDynamicSlots"), classad::Value::Int(k as i64));
            assert!(kept.to_string().contains(&format!("\"slot1_{k}@h\"")));
        }
        Ok(())
    }

    #[test]
    fn a_startd_made_like_another_is_the_startd_new_makes() -> Result<(), Box<dyn std::error::Error>> {
        let configs = [
            "STARTD_DETECT_GPUS = false\n",
            "STARTD_DETECT_GPUS = false\nSTARTD_NAME = worker\n",
            "MACHINE_RESOURCE_GPUs = g0, g1, g2\nSTARTD_ATTRS = Team, Broken\nTeam = \"blue\"\nBroken = 1 +\n",
            "SLOT_TYPE_1 = cpus=50%\nSLOT_TYPE_1_PARTITIONABLE = true\nNUM_SLOTS_TYPE_1 = 2\nSTARTD_DETECT_GPUS = false\n",
            "STARTD_DETECT_GPUS = false\nSLOT_TYPE_0_PARTITIONABLE = false\n",
            "STARTD_DETECT_GPUS = false\nCONSUMPTION_POLICY = true\n",
        ];
        let job: ClassAd =
            "[ RequestCpus = 1; RequestMemory = 1000; RequestDisk = 1000; RequestGPUs = 1; User = \"u@d\" ]".parse()?;
        for text in configs {
            let config = Config::parse_str(text, "t.conf")?;
            let machine = |name: &str| Machine {
                name: name.into(),
                cpus: 8,
                memory: 16384,
                disk: 8_000_000,
                attributes: vec![("Arch".into(), classad::Expr::from("X86_64"))],
                ..Machine::default()
            };
            let mut made = Startd::new(machine("b"), &config)?;
            let first = Startd::new(machine("a"), &config)?;
            let mut like = first.like("b").ok_or("a startd without claims")?;
            assert_eq!(made.warnings(), like.warnings(), "{text}");
            assert_eq!(ads(&mut made), ads(&mut like), "{text}");
            // the same claims and releases give the same slots
            for step in 0..6 {
                let slot = if step % 2 == 0 { "1" } else { "2" };
                let (x, y) = (made.claim(slot, &job), like.claim(slot, &job));
                assert_eq!(x.map(|c| c.name).ok(), y.map(|c| c.name).ok(), "{text}");
                if step == 3 {
                    made.release("slot1_1@b").ok();
                    like.release("slot1_1@b").ok();
                }
                assert_eq!(ads(&mut made), ads(&mut like), "{text}");
                assert_eq!(made.warnings(), like.warnings(), "{text}");
            }
            // the first startd's ads still name its own machine
            let mut first = first;
            assert!(ads(&mut first).iter().all(|ad| !ad.contains("@b\"") && !ad.contains("\"b\"")), "{text}");
            if !made.dynamic_slots().is_empty() {
                assert!(made.like("c").is_none());
            }
        }
        Ok(())
    }
}
