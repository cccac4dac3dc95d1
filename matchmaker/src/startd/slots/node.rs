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

use super::ad::{decimal, push_number, ChildRow, CustomNames};
use super::dynamic::has_requests;
use super::layout::Layout;
use super::policy::Policies;
use super::resources::with_detected;
use super::{Machine, Slot, SlotError, SlotKind};
use crate::config::Config;

/// A dynamic slot and the claim it serves.
#[derive(Debug, Clone)]
pub struct DynamicSlot {
    /// Its resources.
    pub slot: Slot,
    /// The job (request) it was created for, with the startd's rounding
    /// of its requests applied (shared with the caller that rounded it,
    /// see [`Startd::claim_at`]).
    pub job: Arc<ClassAd>,
    /// What it adds to its partitionable slot's `Child<Attr>` lists.
    pub(crate) row: ChildRow,
}

impl DynamicSlot {
    /// Whether `name` is this slot's name (compared with the name it was
    /// given at its creation, which does not change).
    pub(crate) fn is_named(&self, name: &str) -> bool {
        self.row.name() == Some(name)
    }
}

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
    pub fn slot_name(&self, slot: &Slot) -> String {
        let knobs = self.policies.knobs(&self.config, slot.type_id);
        let mut name = String::with_capacity(knobs.prefix.len() + self.host.len() + 12);
        name.push_str(&knobs.prefix);
        push_number(&mut name, i64::from(slot.id));
        if slot.kind == SlotKind::Dynamic {
            name.push('_');
            push_number(&mut name, i64::from(slot.sub_id));
        }
        name.push('@');
        name.push_str(&self.host);
        name
    }

    /// What follows the `slot<N>` (or `slot<N>_<M>`) part of `key` when
    /// `key` starts with it, the name of `slot` being built so.
    fn after_short_name<'k>(&self, slot: &Slot, key: &'k str) -> Option<&'k str> {
        let knobs = self.policies.knobs(&self.config, slot.type_id);
        let rest = strip_number(key.strip_prefix(knobs.prefix.as_str())?, slot.id)?;
        if slot.kind == SlotKind::Dynamic {
            strip_number(rest.strip_prefix('_')?, slot.sub_id)
        } else {
            Some(rest)
        }
    }

    /// Whether `name` is the name of `slot` (as [`slot_name`](Self::slot_name)
    /// gives it), without building the name.
    pub(crate) fn is_named(&self, slot: &Slot, name: &str) -> bool {
        self.after_short_name(slot, name).and_then(|rest| rest.strip_prefix('@')) == Some(self.host.as_str())
    }

    /// Finds a static or partitionable slot by name (`slot1@host`), by
    /// short name (`slot1`) or by id (`1`).
    pub(crate) fn find_slot(&self, key: &str) -> Option<usize> {
        self.layout.slots.iter().position(|s| {
            let prefix_has_at = self.policies.knobs(&self.config, s.type_id).prefix.contains('@');
            if prefix_has_at {
                // the short name is what comes before the first '@'
                let name = self.slot_name(s);
                return name == key || name.split('@').next() == Some(key) || s.id.to_string() == key;
            }
            match self.after_short_name(s, key) {
                Some("") => true,
                Some(rest) if rest.strip_prefix('@') == Some(self.host.as_str()) => true,
                _ => strip_number(key, s.id) == Some(""),
            }
        })
    }

    /// The slot ads, static and partitionable slots by id, each followed by
    /// its dynamic slots.
    pub fn ads(&mut self) -> Vec<ClassAd> {
        let mut warnings = Vec::new();
        let mut out = Vec::new();
        for i in 0..self.layout.slots.len() {
            let slot = &self.layout.slots[i];
            let children: Vec<&DynamicSlot> = self.dynamic.iter().filter(|d| d.slot.id == slot.id).collect();
            out.push(self.build_ad(slot, None, &children, &mut warnings));
            for d in children {
                out.push(self.build_ad(&d.slot, Some(&*d.job), &[], &mut warnings));
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
            return Some(self.with_children(slot.id, |children| self.build_ad(slot, None, children, &mut warnings)));
        }
        self.dynamic
            .iter()
            .find(|d| d.is_named(name))
            .map(|d| self.build_ad(&d.slot, Some(&*d.job), &[], &mut warnings))
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
                self.refresh_built_ad(ad, &d.slot, Some(&*d.job), &[]);
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
        self.with_children(slot.id, |children| self.refresh_built_ad(ad, slot, None, children));
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
}

/// How many dynamic slots [`Startd::with_children`] gathers on the stack.
const CHILDREN_ON_STACK: usize = 32;

/// The name of the startd of `machine` (`STARTD_NAME`, with the machine's
/// name after an `@` unless it has one; else the machine's name).
fn host_name(config: &Config, machine: &Machine) -> String {
    match config.lookup("STARTD_NAME").map(|l| l.value).filter(|v| !v.trim().is_empty()) {
        Some(n) if n.contains('@') => n.trim().to_string(),
        Some(n) => format!("{}@{}", n.trim(), machine.name),
        None => machine.name.clone(),
    }
}

/// What follows the decimal digits of `n` at the start of `text`, if it
/// starts with them.
fn strip_number(text: &str, n: u32) -> Option<&str> {
    let mut buffer = [0u8; 20];
    let digits = decimal(u64::from(n), &mut buffer);
    if text.as_bytes().starts_with(digits) {
        text.get(digits.len()..)
    } else {
        None
    }
}

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
