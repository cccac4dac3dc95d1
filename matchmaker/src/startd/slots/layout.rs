//! Dividing a machine into slots: `NUM_SLOTS_TYPE_<N>` slots of each
//! `SLOT_TYPE_<N>`, fixed shares first, then `auto` shares, as the startd
//! allocates them.
//!
//! The rules (HTCondor's):
//! - Slot types 1 to `MAX_SLOT_TYPES - 1` with a non-zero
//!   `NUM_SLOTS_TYPE_<N>` are laid out in type order. When none is set,
//!   type 0 gives `NUM_SLOTS` slots that each take everything (`auto`), one
//!   partitionable slot by default (`SLOT_TYPE_0_PARTITIONABLE` is true
//!   unless configured), or one slot per CPU when it is set to false.
//! - Fixed shares are taken in slot order; a slot that does not fit is an
//!   over-commitment error. CPU and memory fractions are of the machine's
//!   totals (memory truncated to whole MB, at least 1; CPUs at least 1
//!   unless `minimal`); disk and swap are fractions only.
//! - The CPUs left are counted in whole CPUs: a slot's CPUs are subtracted
//!   and the result truncated toward zero, so a fixed share that exceeds
//!   what is left by less than one CPU still fits and leaves nothing
//!   (`cpus=101%` of 1 CPU gives 1.01 CPUs, advertised as 1; `cpus=1.95`
//!   is advertised as 2). A `minimal` slot under half a CPU is not counted.
//!   Memory, disk, swap and custom resources are counted exactly.
//! - A bare `minimal` makes the slot's CPUs fractional: advertised as a
//!   real, even a whole number.
//! - What the fixed shares leave is split evenly among the slots that ask
//!   `auto` for it: CPUs as a real quotient (a slot advertises it rounded
//!   down after adding 0.1), memory by integer division, disk and swap as
//!   fractions. A custom resource's remainder goes out in whole units, the
//!   first `auto` slots taking the excess. An `auto` share under one CPU or
//!   one MB is an error.
//! - A slot's disk is `ceil(total disk * fraction)` KB.
//!
//! ```
//! use matchmaker::config::Config;
//! use matchmaker::startd::slots::{Layout, Machine, SlotKind};
//!
//! let config = Config::parse_str(
//!     "NUM_CPUS = 8\nMEMORY = 16384\nSTARTD_DETECT_GPUS = false\n\
//!      SLOT_TYPE_1 = cpus=2, memory=25%, disk=1/4\nNUM_SLOTS_TYPE_1 = 2\n\
//!      SLOT_TYPE_2 = auto\nNUM_SLOTS_TYPE_2 = 2\n",
//!     "startd.conf",
//! )?;
//! let machine = Machine { name: "node1".into(), disk: 8_000_000, ..Machine::default() };
//! let layout = Layout::new(&machine, &config)?;
//! let cpus: Vec<i64> = layout.slots.iter().map(|s| s.advertised_cpus() as i64).collect();
//! assert_eq!(cpus, [2, 2, 2, 2]);
//! let memory: Vec<i64> = layout.slots.iter().map(|s| s.memory).collect();
//! assert_eq!(memory, [4096, 4096, 4096, 4096]);
//! assert_eq!(layout.slots[2].disk(layout.totals.disk), 2_000_000);
//! assert_eq!(layout.slots[0].kind, SlotKind::Static);
//! # Ok::<(), matchmaker::startd::slots::SlotError>(())
//! ```

use std::collections::BTreeMap;

use super::resources::with_detected;
use super::share::{parse_slot_type, Share};
use super::{Machine, MachineTotals, SlotError};
use crate::config::Config;

/// The most slots a layout may have (HTCondor has no limit; this bounds
/// the memory a configuration can make the library use).
pub const MAX_SLOTS: usize = 100_000;

/// What kind of slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotKind {
    /// A fixed slot.
    Static,
    /// A slot dynamic slots are carved from.
    Partitionable,
    /// A slot carved from a partitionable slot for one claim.
    Dynamic,
}

impl SlotKind {
    /// `SlotType` as the startd advertises it.
    pub fn as_str(self) -> &'static str {
        match self {
            SlotKind::Static => "Static",
            SlotKind::Partitionable => "Partitionable",
            SlotKind::Dynamic => "Dynamic",
        }
    }
}

/// One slot's resources.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotResources {
    /// `SlotID`: the slot number (a dynamic slot's is its parent's).
    pub id: u32,
    /// `DSlotId` for a dynamic slot, 0 otherwise.
    pub sub_id: u32,
    /// `SlotTypeID`: the `SLOT_TYPE_<N>` it was built from.
    pub type_id: u32,
    /// Static, partitionable or dynamic.
    pub kind: SlotKind,
    /// CPUs it has now (a partitionable slot's shrink as dynamic slots
    /// take theirs).
    pub cpus: f64,
    /// CPUs it was built with (`TotalSlotCpus`).
    pub total_cpus: f64,
    /// Whether its CPUs are fractional (a bare `minimal` in its slot type,
    /// or a dynamic slot given less than one CPU): they may be under one
    /// and are advertised as a real.
    pub fractional_cpus: bool,
    /// Memory (MB) it has now.
    pub memory: i64,
    /// Memory it was built with (`TotalSlotMemory`).
    pub total_memory: i64,
    /// Its fraction of the machine's disk now.
    pub disk_fraction: f64,
    /// Disk (KB) it was built with (`TotalSlotDisk`).
    pub total_disk: i64,
    /// Its fraction of the swap, `None` for all of it.
    pub swap_fraction: Option<f64>,
    /// Custom resources it has now, by name (in the machine's order).
    pub custom: BTreeMap<String, f64>,
    /// Custom resources it was built with (`TotalSlot<Res>`).
    pub custom_total: BTreeMap<String, f64>,
    /// Device ids bound to it, by resource.
    pub ids: BTreeMap<String, Vec<String>>,
}

impl SlotResources {
    /// `Cpus` as advertised: a real for a fractional slot, otherwise the
    /// CPUs rounded down after adding 0.1.
    pub fn advertised_cpus(&self) -> f64 {
        advertise_cpus(self.cpus.max(0.0), self.fractional_cpus)
    }

    /// `TotalSlotCpus` as advertised.
    pub fn advertised_total_cpus(&self) -> f64 {
        advertise_cpus(self.total_cpus, self.fractional_cpus)
    }

    /// Disk (KB) of the slot on a machine with `total_disk` KB.
    pub fn disk(&self, total_disk: i64) -> i64 {
        (total_disk as f64 * self.disk_fraction).ceil() as i64
    }

    /// Swap (KB) of the slot on a machine with `swap` KB.
    pub fn swap(&self, swap: i64) -> i64 {
        match self.swap_fraction {
            Some(f) => (swap as f64 * f).floor() as i64,
            None => swap,
        }
    }
}

pub(crate) fn advertise_cpus(cpus: f64, fractional: bool) -> f64 {
    if fractional {
        cpus
    } else {
        (cpus + 0.1).trunc()
    }
}

/// A machine divided into its configured slots (no dynamic slots yet).
#[derive(Debug, Clone)]
pub struct Layout {
    /// The machine's totals under the configuration.
    pub totals: MachineTotals,
    /// The slots, by slot id.
    pub slots: Vec<SlotResources>,
}

/// A slot's request before `auto` shares are resolved.
#[derive(Debug, Clone)]
struct Request {
    type_id: u32,
    cpus: Option<f64>,
    memory: Option<i64>,
    disk: Option<f64>,
    swap: Option<f64>,
    custom: BTreeMap<String, Option<f64>>,
    fractional: bool,
    partitionable: bool,
}

/// Looks up `name` for slot type `type_id` as the startd does: the
/// `SLOT_TYPE_<N>_<name>` value if set, else `name`.
pub(crate) fn type_param(config: &Config, type_id: u32, name: &str) -> Option<String> {
    config.lookup(&format!("SLOT_TYPE_{type_id}_{name}")).or_else(|| config.lookup(name)).map(|l| l.value)
}

/// A boolean of slot type `type_id` (see [`type_param`]); `default` when
/// unset or not a boolean.
pub(crate) fn type_bool(config: &Config, type_id: u32, name: &str, default: bool) -> bool {
    match type_param(config, type_id, name) {
        Some(v) => match classad::parse_expr(v.trim()).map(|e| e.eval()) {
            Ok(classad::Value::Bool(b)) => b,
            Ok(classad::Value::Int(i)) => i != 0,
            _ => default,
        },
        None => default,
    }
}

fn int_or(config: &Config, name: &str, default: i64) -> Result<i64, SlotError> {
    match config.lookup(name) {
        Some(l) if !l.value.trim().is_empty() => Ok(config.get_int(name)?),
        _ => Ok(default),
    }
}

impl Layout {
    /// Lays out `machine` as `config` asks. Errors: bad `SLOT_TYPE_<N>`
    /// descriptions, slots that do not fit (over-commitment), `auto`
    /// shares too small, bad totals.
    pub fn new(machine: &Machine, config: &Config) -> Result<Layout, SlotError> {
        let config = with_detected(machine, config)?;
        let totals = MachineTotals::new(machine, &config)?;
        let max_types = int_or(&config, "MAX_SLOT_TYPES", 10)?.clamp(1, 1000) as u32;
        if config.lookup("SLOT_TYPE_0").is_some_and(|l| !l.value.trim().is_empty())
            || config.lookup("NUM_SLOTS_TYPE_0").is_some_and(|l| !l.value.trim().is_empty())
        {
            return Err(SlotError::BadSlotType {
                type_id: 0,
                message: "SLOT_TYPE_0 and NUM_SLOTS_TYPE_0 can't be defined in the config file".into(),
            });
        }
        // How many slots of each type.
        let mut counts: Vec<(u32, i64)> = Vec::new();
        for t in 1..max_types {
            let n = int_or(&config, &format!("NUM_SLOTS_TYPE_{t}"), 0)?;
            if n != 0 {
                counts.push((t, n.max(0)));
            }
        }
        if counts.is_empty() {
            let pslot = type_bool(&config, 0, "PARTITIONABLE", true);
            let n = int_or(&config, "NUM_SLOTS", if pslot { 1 } else { totals.cpus })?;
            counts.push((0, n.max(0)));
        }
        let requested: i64 = counts.iter().map(|(_, n)| *n).fold(0i64, i64::saturating_add);
        if requested > MAX_SLOTS as i64 {
            return Err(SlotError::TooManySlots { count: requested, limit: MAX_SLOTS });
        }
        let custom_names: Vec<String> = totals.custom.iter().map(|c| c.name.clone()).collect();
        let total_of = |name: &str| totals.custom.iter().find(|c| c.name == name).map_or(0.0, |c| c.total);

        // Fixed shares, in slot order.
        let mut avail_cpus = totals.cpus;
        let mut avail_mem = totals.memory;
        let mut avail_swap = 1.0f64;
        let mut avail_disk = 1.0f64;
        let mut avail_custom: BTreeMap<String, f64> = custom_names.iter().map(|n| (n.clone(), total_of(n))).collect();
        let mut auto_cpus = 0u32;
        let mut auto_mem = 0u32;
        let mut auto_swap = 0u32;
        let mut auto_disk = 0u32;
        let mut auto_custom: BTreeMap<String, u32> = custom_names.iter().map(|n| (n.clone(), 0)).collect();
        let mut requests: Vec<Request> = Vec::new();
        const FLOOR: f64 = -0.000001;
        for &(type_id, n) in &counts {
            let text = if type_id == 0 {
                "auto".to_string()
            } else {
                config.lookup(&format!("SLOT_TYPE_{type_id}")).map(|l| l.value).unwrap_or_default()
            };
            let d = parse_slot_type(&text, type_id)?;
            let min_std = if d.fractional_cpus { 0.0 } else { 1.0 };
            let cpus = d.cpus.of(totals.cpus as f64).map(|c| c.max(min_std));
            let memory =
                d.memory.of(totals.memory as f64).map(|m| (m as i64).max(if d.fractional_cpus { 0 } else { 1 }));
            let disk = d.disk.of(1.0).map(|f| f.abs());
            let swap = d.swap.of(1.0).map(|f| f.abs());
            let mut custom: BTreeMap<String, Option<f64>> = BTreeMap::new();
            for name in &custom_names {
                let listed = d.custom.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(name)).map(|(_, s, _)| *s);
                let share = listed.unwrap_or(d.default);
                custom.insert(name.clone(), share.of(total_of(name)).map(|v| v.max(0.0)));
            }
            for (n, share, _) in &d.custom {
                if !custom_names.iter().any(|c| c.eq_ignore_ascii_case(n))
                    && matches!(share, Share::Amount(a) if *a > 0.0)
                {
                    return Err(SlotError::BadSlotType { type_id, message: format!("unknown resource \"{n}\"") });
                }
            }
            let partitionable = type_bool(&config, type_id, "PARTITIONABLE", type_id == 0);
            // Only a bare `minimal` makes the slot's CPUs fractional (the
            // startd advertises them as a real then, even a whole number).
            let fractional = d.fractional_cpus;
            let req = Request { type_id, cpus, memory, disk, swap, custom, fractional, partitionable };
            for nth in 0..n {
                let new_cpus = match req.cpus {
                    Some(c) if !(req.fractional && c < 0.5) => (avail_cpus as f64 - c).trunc() as i64,
                    _ => avail_cpus,
                };
                let new_mem = avail_mem - req.memory.unwrap_or(0);
                let new_swap = avail_swap - req.swap.unwrap_or(0.0);
                let new_disk = avail_disk - req.disk.unwrap_or(0.0);
                let mut new_custom = avail_custom.clone();
                let mut short = None;
                for (name, v) in new_custom.iter_mut() {
                    *v -= req.custom.get(name).copied().flatten().unwrap_or(0.0);
                    if *v < FLOOR {
                        short = Some(name.clone());
                    }
                }
                if short.is_some()
                    || (new_cpus as f64) < FLOOR
                    || (new_mem as f64) < FLOOR
                    || new_swap < FLOOR
                    || new_disk < FLOOR
                {
                    return Err(SlotError::Overcommitted {
                        nth: u32::try_from(nth + 1).unwrap_or(u32::MAX),
                        type_id,
                        requesting: describe(&req),
                        available: format!(
                            "Cpus: {avail_cpus}, Memory: {avail_mem}, Swap: {:.2}%, Disk: {:.2}%{}",
                            avail_swap * 100.0,
                            avail_disk * 100.0,
                            avail_custom.iter().map(|(n, v)| format!(", {n}: {}", *v as i64)).collect::<String>()
                        ),
                    });
                }
                avail_cpus = new_cpus;
                avail_mem = new_mem;
                avail_swap = new_swap;
                avail_disk = new_disk;
                avail_custom = new_custom;
                auto_cpus += u32::from(req.cpus.is_none());
                auto_mem += u32::from(req.memory.is_none());
                auto_swap += u32::from(req.swap.is_none());
                auto_disk += u32::from(req.disk.is_none());
                for (name, c) in auto_custom.iter_mut() {
                    *c += u32::from(req.custom.get(name).copied().flatten().is_none());
                }
                requests.push(req.clone());
            }
        }

        // Auto shares, in slot order.
        let mut remain_cap = avail_custom.clone();
        let mut remain_cnt = auto_custom.clone();
        let mut slots = Vec::with_capacity(requests.len());
        for (i, req) in requests.iter().enumerate() {
            let slot_no = i as u32 + 1;
            let auto_err =
                |what: &str| SlotError::AutoShare { slot: slot_no, type_id: req.type_id, what: what.to_string() };
            let cpus = match req.cpus {
                Some(c) => c,
                None => {
                    let v = avail_cpus as f64 / f64::from(auto_cpus.max(1));
                    if v < 1.0 && !(req.fractional && v > 0.0) {
                        return Err(auto_err(&format!("Cpus: {avail_cpus} left for {auto_cpus} auto slots")));
                    }
                    v
                }
            };
            let memory = match req.memory {
                Some(m) => m,
                None => {
                    let v = avail_mem / i64::from(auto_mem.max(1));
                    if v < 1 {
                        return Err(auto_err(&format!("Memory: {avail_mem} MB left for {auto_mem} auto slots")));
                    }
                    v
                }
            };
            let swap = match req.swap {
                Some(s) => Some(s),
                None => {
                    let v = avail_swap / f64::from(auto_swap.max(1));
                    if v <= 0.0 {
                        return Err(auto_err("Swap: nothing left for the auto slots"));
                    }
                    Some(v)
                }
            };
            let disk = match req.disk {
                Some(d) => d,
                None => {
                    let v = avail_disk / f64::from(auto_disk.max(1));
                    if v <= 0.0 {
                        return Err(auto_err("Disk: nothing left for the auto slots"));
                    }
                    v
                }
            };
            let mut custom = BTreeMap::new();
            for name in &custom_names {
                let v = match req.custom.get(name).copied().flatten() {
                    Some(v) => v,
                    None => {
                        let left = avail_custom.get(name).copied().unwrap_or(0.0);
                        let cnt = remain_cnt.entry(name.clone()).or_insert(1);
                        let cap = remain_cap.entry(name.clone()).or_insert(0.0);
                        let v = if left < 1.0 { 0.0 } else { (*cap / f64::from((*cnt).max(1))).ceil() };
                        *cap -= v;
                        *cnt = cnt.saturating_sub(1);
                        v
                    }
                };
                custom.insert(name.clone(), v);
            }
            let fractional = req.fractional;
            let total_disk = (totals.disk as f64 * disk).ceil() as i64;
            slots.push(SlotResources {
                id: slot_no,
                sub_id: 0,
                type_id: req.type_id,
                kind: if req.partitionable { SlotKind::Partitionable } else { SlotKind::Static },
                cpus,
                total_cpus: cpus,
                fractional_cpus: fractional,
                memory,
                total_memory: memory,
                disk_fraction: disk,
                total_disk,
                swap_fraction: swap,
                custom_total: custom.clone(),
                custom,
                ids: BTreeMap::new(),
            });
        }

        // Bind device ids, slot by slot, in the machine's order.
        for c in &totals.custom {
            let mut next = c.ids.iter();
            for slot in &mut slots {
                let want = slot.custom.get(&c.name).copied().unwrap_or(0.0) as usize;
                let got: Vec<String> = next.by_ref().take(want).cloned().collect();
                if !c.ids.is_empty() {
                    slot.ids.insert(c.name.clone(), got);
                }
            }
        }
        Ok(Layout { totals, slots })
    }
}

/// A request as the startd logs it (`Cpus: 2.000000, Memory: 3000, Swap:
/// auto, ...`).
fn describe(req: &Request) -> String {
    let pct = |v: Option<f64>| v.map_or_else(|| "auto".to_string(), |v| format!("{:.2}%", v * 100.0));
    let mut s = format!(
        "Cpus: {}, Memory: {}, Swap: {}, Disk: {}",
        req.cpus.map_or_else(|| "auto".to_string(), |c| format!("{c:.6}")),
        req.memory.map_or_else(|| "auto".to_string(), |m| m.to_string()),
        pct(req.swap),
        pct(req.disk)
    );
    for (n, v) in &req.custom {
        match v {
            Some(v) => s.push_str(&format!(", {n}: {}", v.trunc() as i64)),
            None => s.push_str(&format!(", {n}: auto")),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(text: &str) -> Result<Layout, SlotError> {
        let machine = Machine { name: "h".into(), cpus: 8, memory: 16384, disk: 8_000_000, ..Machine::default() };
        Layout::new(&machine, &Config::parse_str(text, "t.conf")?)
    }

    #[test]
    fn default_is_one_partitionable_slot() -> Result<(), SlotError> {
        let l = layout("")?;
        assert_eq!(l.slots.len(), 1);
        assert_eq!(l.slots[0].kind, SlotKind::Partitionable);
        assert_eq!((l.slots[0].cpus, l.slots[0].memory), (8.0, 16384));
        let l = layout("SLOT_TYPE_0_PARTITIONABLE = false\n")?;
        assert_eq!(l.slots.len(), 8);
        assert!(l.slots.iter().all(|s| s.kind == SlotKind::Static && s.memory == 2048));
        Ok(())
    }

    #[test]
    fn auto_shares_split_what_is_left() -> Result<(), SlotError> {
        let l = layout(
            "SLOT_TYPE_1 = cpus=2, memory=25%, disk=1/4\nNUM_SLOTS_TYPE_1 = 2\n\
             SLOT_TYPE_2 = cpus=1, memory=1000, auto\nNUM_SLOTS_TYPE_2 = 1\nSLOT_TYPE_3 = auto\nNUM_SLOTS_TYPE_3 = 2\n",
        )?;
        let got: Vec<(f64, i64, i64)> =
            l.slots.iter().map(|s| (s.advertised_cpus(), s.memory, s.disk(l.totals.disk))).collect();
        assert_eq!(
            got,
            [
                (2.0, 4096, 2000000),
                (2.0, 4096, 2000000),
                (1.0, 1000, 1333334),
                (1.0, 3596, 1333334),
                (1.0, 3596, 1333334)
            ]
        );
        Ok(())
    }

    #[test]
    fn overcommitment_is_an_error() {
        let err = layout("SLOT_TYPE_1 = cpus=4, memory=1024\nNUM_SLOTS_TYPE_1 = 3\n").unwrap_err();
        assert!(matches!(err, SlotError::Overcommitted { nth: 3, type_id: 1, .. }), "{err}");
        assert!(err.to_string().contains("Cpus: 0, Memory: 14336"), "{err}");
        let err = layout("SLOT_TYPE_1 = cpus=8\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_2 = auto\nNUM_SLOTS_TYPE_2 = 1\n")
            .unwrap_err();
        assert!(matches!(err, SlotError::AutoShare { slot: 2, .. }), "{err}");
        let err = layout("SLOT_TYPE_1 = disk=60%\nNUM_SLOTS_TYPE_1 = 2\n").unwrap_err();
        assert!(err.to_string().contains("Disk: 40.00%"), "{err}");
    }

    /// The advertised `Cpus` of each slot, or the error's text.
    fn cpus_of(text: &str) -> Result<Vec<f64>, String> {
        layout(text).map(|l| l.slots.iter().map(SlotResources::advertised_cpus).collect()).map_err(|e| e.to_string())
    }

    // HTCondor 23.9.6 counts the CPUs left in whole CPUs: AvailAttributes::
    // decrement (ResAttributes.cpp) keeps them in an `int` and subtracts a
    // slot's real CPUs from it, which truncates toward zero, and a slot fits
    // while the result is not below -0.000001. A fixed CPU share that
    // exceeds what is left by less than one CPU therefore fits and leaves 0.
    // The slot keeps its real CPUs and advertises them as `(int)(cpus + 0.1)`
    // (CpuAttributes::publish_static). Captured from the real startd in
    // tests/data/slots/cpus_*.
    #[test]
    fn cpu_shares_over_the_machine_fit_by_less_than_one_cpu() -> Result<(), SlotError> {
        // cpus=101% of 1 CPU: 1.01 CPUs, 1 - 1.01 truncates to 0, so it fits;
        // advertised as 1 (layout cpus_share_over_100).
        let l = layout(
            "NUM_CPUS = 1
SLOT_TYPE_1 = cpus=101%
NUM_SLOTS_TYPE_1 = 1
",
        )?;
        assert_eq!(l.slots.len(), 1);
        assert!((l.slots[0].cpus - 1.01).abs() < 1e-9, "{}", l.slots[0].cpus);
        assert_eq!(l.slots[0].advertised_cpus(), 1.0);
        assert_eq!(l.slots[0].advertised_total_cpus(), 1.0);
        // two types summing to 110% of 4 CPUs: 2, then 2 - 2.4 truncates to 0;
        // advertised 2 and 2 (layout cpus_shares_sum_over_100).
        assert_eq!(
            cpus_of(
                "NUM_CPUS = 4
SLOT_TYPE_1 = cpus=50%
NUM_SLOTS_TYPE_1 = 1
                 SLOT_TYPE_2 = cpus=60%
NUM_SLOTS_TYPE_2 = 1
"
            ),
            Ok(vec![2.0, 2.0])
        );
        // an amount over the machine by less than one: 1.95 CPUs of 1 fits
        // and is advertised as 2 CPUs, one more than the machine has
        // (layout cpus_amount_over_machine).
        assert_eq!(
            cpus_of(
                "NUM_CPUS = 1
SLOT_TYPE_1 = cpus=1.95
NUM_SLOTS_TYPE_1 = 1
"
            ),
            Ok(vec![2.0])
        );
        // a whole CPU too many does not fit: 1 - 2 = -1 (layout
        // cpus_amount_refused), nor does 200%, nor a second slot once the
        // first has left nothing.
        for text in [
            "NUM_CPUS = 1
SLOT_TYPE_1 = cpus=2
NUM_SLOTS_TYPE_1 = 1
",
            "NUM_CPUS = 1
SLOT_TYPE_1 = cpus=200%
NUM_SLOTS_TYPE_1 = 1
",
            "NUM_CPUS = 4
SLOT_TYPE_1 = cpus=101%
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_2 = cpus=1
NUM_SLOTS_TYPE_2 = 1
",
        ] {
            let err = layout(text).expect_err(text);
            assert!(matches!(err, SlotError::Overcommitted { nth: 1, .. }), "{text}: {err}");
        }
        let err = layout(
            "NUM_CPUS = 1
SLOT_TYPE_1 = cpus=2
NUM_SLOTS_TYPE_1 = 1
",
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("requesting Cpus: 2.000000") && err.to_string().contains("available Cpus: 1,")
        );
        // and `auto` slots get nothing after an over-commitment: 0 CPUs left
        let err = layout(
            "NUM_CPUS = 1
SLOT_TYPE_1 = cpus=101%
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_2 = auto
NUM_SLOTS_TYPE_2 = 1
",
        )
        .unwrap_err();
        assert!(matches!(err, SlotError::AutoShare { slot: 2, .. }), "{err}");
        Ok(())
    }

    // Memory, disk, swap and custom resources are counted exactly: the same
    // AvailAttributes::decrement subtracts them without truncating what is
    // left (memory shares are truncated to whole MB first, by
    // compute_local_resource in slot_builder.cpp), and the startd refuses
    // the layout: "ERROR: Can't allocate 1st slot of type 1" with the
    // request and what is available, then EXCEPT "Ran out of system
    // resources" (buildCpuAttrs). Captured in tests/data/slots/*_over_*.
    #[test]
    fn other_shares_over_the_machine_are_refused() {
        let cases = [
            // memory=150% of 4096 MB: 6144 MB (memory_share_over_100)
            (
                "SLOT_TYPE_1 = memory=150%
NUM_SLOTS_TYPE_1 = 1
",
                1,
                1,
                "Memory: 6144,",
                "Memory: 4096,",
            ),
            // 60% (2457 MB) then 50% (2048 MB) (memory_shares_sum_over_100)
            (
                "SLOT_TYPE_1 = memory=60%
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_2 = memory=50%
NUM_SLOTS_TYPE_2 = 1
",
                1,
                2,
                "Memory: 2048,",
                "Memory: 1639,",
            ),
            // 5000 MB of 4096 (memory_amount_over_machine)
            (
                "SLOT_TYPE_1 = memory=5000
NUM_SLOTS_TYPE_1 = 1
",
                1,
                1,
                "Memory: 5000,",
                "Memory: 4096,",
            ),
            // even one MB over: 100.1% of 4096 is 4100 MB
            (
                "SLOT_TYPE_1 = memory=100.1%
NUM_SLOTS_TYPE_1 = 1
",
                1,
                1,
                "Memory: 4100,",
                "Memory: 4096,",
            ),
            // disk and swap fractions (disk_share_over_100, swap_share_over_100)
            (
                "SLOT_TYPE_1 = disk=150%
NUM_SLOTS_TYPE_1 = 1
",
                1,
                1,
                "Disk: 150.00%",
                "Disk: 100.00%",
            ),
            (
                "SLOT_TYPE_1 = swap=101%
NUM_SLOTS_TYPE_1 = 1
",
                1,
                1,
                "Swap: 101.00%",
                "Swap: 100.00%",
            ),
            // 101% of two licenses is 2.02, not truncated (custom_share_over_100)
            (
                "MACHINE_RESOURCE_Lic = 2
SLOT_TYPE_1 = lic=101%
NUM_SLOTS_TYPE_1 = 1
",
                1,
                1,
                "Lic: 2",
                "Lic: 2",
            ),
            // an amount of a custom resource over what there is
            (
                "MACHINE_RESOURCE_Lic = 2
SLOT_TYPE_1 = lic=2.5
NUM_SLOTS_TYPE_1 = 1
",
                1,
                1,
                "Lic: 2",
                "Lic: 2",
            ),
        ];
        for (text, nth_want, type_want, requesting, available) in cases {
            let text = format!(
                "NUM_CPUS = 4
MEMORY = 4096
{text}"
            );
            let err = layout(&text).expect_err(&text);
            assert!(
                matches!(err, SlotError::Overcommitted { nth, type_id, .. } if nth == nth_want && type_id == type_want),
                "{text}: {err}"
            );
            let msg = err.to_string();
            let (req, avail) = msg.split_once("; available ").expect("two parts");
            assert!(req.contains(requesting) && avail.contains(available), "{text}: {msg}");
        }
        // A bare share over 100% is a bad description (parse_share_value's
        // caller in CpuAttributes::buildSlotRequest: "ERROR: Bad description
        // of slot type 1: "150%" is invalid", then DC_Exit(4);
        // bare_share_over_100).
        let err = layout(
            "SLOT_TYPE_1 = 150%
NUM_SLOTS_TYPE_1 = 1
",
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("bad description of slot type 1: \"150%\" is invalid"), "{err}");
    }

    // A bare `minimal` sets allow_fractional_cpus (buildSlotRequest); the
    // slot then advertises its CPUs as a real, even a whole one, and a
    // fractional slot of half a CPU or more is counted like any other, so
    // with 0 CPUs left it still fits (layout fractional_overcommit: 2.8 CPUs
    // on 2).
    #[test]
    fn minimal_slots_are_fractional_and_may_overcommit() -> Result<(), SlotError> {
        let l = layout(
            "NUM_CPUS = 2
SLOT_TYPE_1 = minimal, cpus=1, memory=512
NUM_SLOTS_TYPE_1 = 1
             SLOT_TYPE_2 = minimal, cpus=0.6, memory=512
NUM_SLOTS_TYPE_2 = 3
",
        )?;
        assert!(l.slots.iter().all(|s| s.fractional_cpus));
        let cpus: Vec<f64> = l.slots.iter().map(SlotResources::advertised_cpus).collect();
        assert_eq!(cpus, [1.0, 0.6, 0.6, 0.6]);
        Ok(())
    }

    #[test]
    fn custom_auto_shares_give_the_excess_to_the_first_slots() -> Result<(), SlotError> {
        let l = layout("MACHINE_RESOURCE_GPUs = g0 g1 g2\nSLOT_TYPE_1 = cpus=1\nNUM_SLOTS_TYPE_1 = 2\n")?;
        assert_eq!(l.slots[0].custom["GPUs"], 2.0);
        assert_eq!(l.slots[1].custom["GPUs"], 1.0);
        assert_eq!(l.slots[0].ids["GPUs"], ["g0", "g1"]);
        assert_eq!(l.slots[1].ids["GPUs"], ["g2"]);
        Ok(())
    }
}
