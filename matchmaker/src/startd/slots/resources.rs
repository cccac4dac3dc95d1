//! The machine's totals as the startd's configuration sees them: CPUs,
//! memory, disk and swap after `NUM_CPUS`, `MEMORY` and `DISK`, and the
//! custom machine resources (`MACHINE_RESOURCE_<name>`,
//! `MACHINE_RESOURCE_INVENTORY_<name>`, GPU discovery).
//!
//! ```
//! use matchmaker::config::Config;
//! use matchmaker::startd::slots::{Machine, MachineTotals};
//!
//! let config = Config::parse_str("NUM_CPUS = 4\nMACHINE_RESOURCE_GPUs = CUDA1, CUDA0\n", "startd.conf")?;
//! let machine = Machine { cpus: 2, memory: 8192, ..Machine::default() };
//! let totals = MachineTotals::new(&machine, &config)?;
//! assert_eq!((totals.cpus, totals.memory), (4, 8192));
//! assert_eq!(totals.custom[0].name, "GPUs");
//! assert_eq!(totals.custom[0].ids, ["CUDA0", "CUDA1"]); // sorted, as the startd keeps them
//! # Ok::<(), matchmaker::startd::slots::SlotError>(())
//! ```

use classad::Value;

use super::{Machine, SlotError};
use crate::config::{Config, Source};

/// A custom machine resource (GPUs, licenses, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct CustomResource {
    /// Its name as configured (`GPUs` from `MACHINE_RESOURCE_GPUs`).
    pub name: String,
    /// How many the machine has (online).
    pub total: f64,
    /// Device ids, sorted; empty for a resource configured as a count.
    pub ids: Vec<String>,
    /// `Detected<name>` as an inventory script (or GPU discovery) would
    /// publish it, when the resource came from one.
    pub detected: Option<Value>,
}

/// The machine's resources as the startd divides them.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineTotals {
    /// CPUs (`NUM_CPUS`, default the detected count).
    pub cpus: i64,
    /// Memory in MB (`MEMORY`, default detected minus `RESERVED_MEMORY`).
    pub memory: i64,
    /// Disk in KB (`DISK`, default the machine's).
    pub disk: i64,
    /// Swap in KB.
    pub swap: i64,
    /// Custom resources, sorted by name ignoring case.
    pub custom: Vec<CustomResource>,
}

/// Names the startd reserves for its standard resources.
const RESERVED: [&str; 7] = ["CPU", "CPUS", "DISK", "SWAP", "MEM", "MEMORY", "RAM"];

/// Reads a resource value: a number (or an expression giving one) is a
/// count; anything else is a list of device ids.
fn parse_resource_value(value: &str) -> (f64, Vec<String>) {
    let t = value.trim();
    if let Ok(n) = t.parse::<f64>() {
        return (n, Vec::new());
    }
    if let Ok(expr) = classad::parse_expr(t) {
        match expr.eval() {
            Value::Int(i) => return (i as f64, Vec::new()),
            Value::Real(r) => return (r, Vec::new()),
            _ => {}
        }
    }
    let mut ids: Vec<String> = t.split([',', ' ', '\t']).filter(|s| !s.is_empty()).map(str::to_string).collect();
    ids.sort();
    ids.dedup();
    (ids.len() as f64, ids)
}

/// The configuration with the macros the startd defines from what it
/// detects (`DETECTED_CPUS`, `DETECTED_MEMORY`, ...).
pub(crate) fn with_detected(machine: &Machine, config: &Config) -> Result<Config, SlotError> {
    let mut c = config.clone();
    let cpus = machine.cpus.to_string();
    for (name, value) in [
        ("DETECTED_CPUS", cpus.as_str()),
        ("DETECTED_CORES", cpus.as_str()),
        ("DETECTED_PHYSICAL_CPUS", cpus.as_str()),
        ("DETECTED_MEMORY", &machine.memory.to_string()),
    ] {
        if c.lookup(name).is_none_or(|l| l.source == Source::Default) {
            c.set(name, value, Source::Detected)?;
        }
    }
    Ok(c)
}

fn lookup_ci<'a, T>(map: &'a std::collections::BTreeMap<String, T>, name: &str) -> Option<&'a T> {
    map.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v)
}

fn defined(config: &Config, name: &str) -> Option<String> {
    config.lookup(name).map(|l| l.value).filter(|v| !v.trim().is_empty())
}

impl MachineTotals {
    /// The totals of `machine` under `config`. Errors: a value that is
    /// not a number, a custom resource with a reserved name, an inventory
    /// the machine description does not report.
    pub fn new(machine: &Machine, config: &Config) -> Result<MachineTotals, SlotError> {
        let config = with_detected(machine, config)?;
        let cpus = config.get_int("NUM_CPUS")?;
        let memory = match defined(&config, "MEMORY") {
            Some(_) => config.get_int("MEMORY")?,
            None => machine.memory - config.get_int("RESERVED_MEMORY").unwrap_or(0),
        };
        let disk = match defined(&config, "DISK") {
            Some(v) => v.trim().parse::<i64>().unwrap_or(machine.disk),
            None => machine.disk,
        };
        if cpus < 1 {
            return Err(SlotError::BadResource { name: "Cpus".into(), message: format!("NUM_CPUS = {cpus}") });
        }
        if memory < 1 {
            return Err(SlotError::BadResource { name: "Memory".into(), message: format!("MEMORY = {memory}") });
        }
        let mut custom: Vec<CustomResource> = Vec::new();
        let mut put = |r: CustomResource| {
            if let Some(old) = custom.iter_mut().find(|c| c.name.eq_ignore_ascii_case(&r.name)) {
                *old = r;
            } else {
                custom.push(r);
            }
        };
        // GPU discovery, unless GPUs are configured by hand.
        let gpus_configured = defined(&config, "MACHINE_RESOURCE_GPUS").is_some()
            || defined(&config, "MACHINE_RESOURCE_INVENTORY_GPUS").is_some();
        if !gpus_configured {
            if let Some(detect) = defined(&config, "STARTD_DETECT_GPUS") {
                let d = detect.trim();
                if !(d.eq_ignore_ascii_case("false") || d == "0" || d.eq_ignore_ascii_case("true") || d == "1") {
                    let ids = lookup_ci(&machine.resources, "GPUs").cloned().unwrap_or_default();
                    put(inventory("GPUs", ids));
                }
            }
        }
        for name in config.names() {
            let upper = name.to_ascii_uppercase();
            let Some(tag) = upper.strip_prefix("MACHINE_RESOURCE_").map(|_| &name["MACHINE_RESOURCE_".len()..]) else {
                continue;
            };
            if tag.is_empty() || upper == "MACHINE_RESOURCE_NAMES" {
                continue;
            }
            let Some(lookup) = config.lookup(&name) else { continue };
            if lookup.source == Source::Default || lookup.value.trim().is_empty() {
                continue;
            }
            if tag.len() > "INVENTORY_".len()
                && tag.get(.."INVENTORY_".len()).is_some_and(|p| p.eq_ignore_ascii_case("INVENTORY_"))
            {
                let tag = &tag["INVENTORY_".len()..];
                let r = match lookup_ci(&machine.resources, tag) {
                    Some(ids) => inventory(tag, ids.clone()),
                    None => match lookup_ci(&machine.counts, tag) {
                        Some(n) => CustomResource {
                            name: tag.to_string(),
                            total: *n,
                            ids: Vec::new(),
                            detected: Some(Value::Real(*n)),
                        },
                        None => {
                            return Err(SlotError::BadResource {
                                name: tag.to_string(),
                                message: format!(
                                    "{name} runs an inventory script; give its result in the machine description's [resources]"
                                ),
                            })
                        }
                    },
                };
                put(r);
                continue;
            }
            let (mut total, ids) = parse_resource_value(&lookup.value);
            let offline_ids = defined(&config, &format!("OFFLINE_{name}")).map(|v| parse_resource_value(&v));
            let mut online = ids.clone();
            if let Some((off_n, off_ids)) = offline_ids {
                if ids.is_empty() {
                    total -= off_n;
                } else {
                    online.retain(|id| !off_ids.contains(id));
                    total = online.len() as f64;
                }
            }
            put(CustomResource { name: tag.to_string(), total: total.max(0.0), ids: online, detected: None });
        }
        if let Some(allowed) = defined(&config, "MACHINE_RESOURCE_NAMES") {
            let allowed: Vec<&str> = allowed.split([',', ' ', '\t']).filter(|s| !s.is_empty()).collect();
            custom.retain(|c| allowed.iter().any(|a| a.eq_ignore_ascii_case(&c.name)));
        }
        for c in &custom {
            if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(&c.name)) {
                return Err(SlotError::BadResource {
                    name: c.name.clone(),
                    message: format!(
                        "MACHINE_RESOURCE_{} is invalid, '{}' is a reserved resource name",
                        c.name, c.name
                    ),
                });
            }
        }
        custom.sort_by_key(|c| c.name.to_ascii_lowercase());
        Ok(MachineTotals { cpus, memory, disk, swap: machine.swap, custom })
    }

    /// `MachineResources`: the standard resources, then the custom ones.
    pub fn machine_resources(&self) -> String {
        let mut s = String::from("Cpus Memory Disk Swap");
        for c in &self.custom {
            s.push(' ');
            s.push_str(&c.name);
        }
        s
    }
}

fn inventory(tag: &str, ids: Vec<String>) -> CustomResource {
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    let detected = if ids.is_empty() { Value::Int(0) } else { Value::Str(ids.join(", ").into()) };
    CustomResource { name: tag.to_string(), total: sorted.len() as f64, ids: sorted, detected: Some(detected) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(text: &str, machine: &Machine) -> Result<MachineTotals, SlotError> {
        MachineTotals::new(machine, &Config::parse_str(text, "t.conf")?)
    }

    #[test]
    fn detected_defaults_and_overrides() -> Result<(), SlotError> {
        let m = Machine { cpus: 6, memory: 4000, disk: 77, ..Machine::default() };
        let t = totals("", &m)?;
        assert_eq!((t.cpus, t.memory, t.disk), (6, 4000, 77));
        assert_eq!(t.custom.len(), 1, "GPU discovery finds no GPUs but still declares the resource");
        assert_eq!(t.custom[0].detected, Some(Value::Int(0)));
        let t = totals("NUM_CPUS = $(DETECTED_CPUS) / 2\nRESERVED_MEMORY = 1000\nDISK = 100\n", &m)?;
        assert_eq!((t.cpus, t.memory, t.disk), (3, 3000, 100));
        Ok(())
    }

    #[test]
    fn custom_resources() -> Result<(), SlotError> {
        let m = Machine { resources: [("FPGA".to_string(), vec!["f1".to_string()])].into(), ..Machine::default() };
        let t = totals(
            "STARTD_DETECT_GPUS = false\nMACHINE_RESOURCE_Licenses = 2 * 5\nMACHINE_RESOURCE_INVENTORY_FPGA = /bin/detect\n\
             MACHINE_RESOURCE_bw = a b c\nOFFLINE_MACHINE_RESOURCE_bw = b\n",
            &m,
        )?;
        let names: Vec<_> = t.custom.iter().map(|c| (c.name.as_str(), c.total)).collect();
        assert_eq!(names, [("bw", 2.0), ("FPGA", 1.0), ("Licenses", 10.0)]);
        assert_eq!(t.custom[0].ids, ["a", "c"]);
        assert_eq!(t.machine_resources(), "Cpus Memory Disk Swap bw FPGA Licenses");
        let err = totals("MACHINE_RESOURCE_INVENTORY_X = /bin/x\n", &m).unwrap_err();
        assert!(err.to_string().contains("give its result in the machine description"), "{err}");
        let err = totals("MACHINE_RESOURCE_RAM = 4\n", &m).unwrap_err();
        assert!(err.to_string().contains("reserved resource name"), "{err}");
        Ok(())
    }
}
