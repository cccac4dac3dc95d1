//! The machine a startd runs on: what it detects (CPUs, memory, disk,
//! swap, devices) and what it publishes about the host.
//!
//! A description can be written by hand as a small TOML file:
//!
//! ```
//! use matchmaker::startd::slots::Machine;
//!
//! let m = Machine::from_toml_str(r#"
//! name = "node7.example.org"
//! cpus = 16
//! memory = 65536        # MB
//! disk = 100000000      # KB
//! swap = 0              # KB
//!
//! [resources]           # detected devices: ids, or a count
//! GPUs = ["CUDA0", "CUDA1"]
//!
//! [attributes]          # published as they are (ClassAd literals)
//! Arch = "X86_64"
//! OpSys = "LINUX"
//! OpSysMajorVer = 9
//! "#, "node7.toml")?;
//! assert_eq!(m.cpus, 16);
//! assert_eq!(m.resources["GPUs"], vec!["CUDA0", "CUDA1"]);
//! assert_eq!(m.attributes[2].0, "OpSysMajorVer");
//! # Ok::<(), matchmaker::startd::slots::SlotError>(())
//! ```

use std::collections::BTreeMap;

use classad::Expr;

use super::SlotError;

/// A machine as the startd detects it.
#[derive(Debug, Clone)]
pub struct Machine {
    /// Host name: the `Machine` attribute and the part of slot names after
    /// `@`.
    pub name: String,
    /// Detected CPUs (`DETECTED_CPUS`; `NUM_CPUS` overrides).
    pub cpus: u32,
    /// Detected physical memory in MB (`DETECTED_MEMORY`; `MEMORY`
    /// overrides).
    pub memory: i64,
    /// Free disk of the execute directory in KB (`DISK` overrides).
    pub disk: i64,
    /// Virtual memory in KB shared among the slots as their
    /// `VirtualMemory` (the startd shares what it detects as
    /// `TotalVirtualMemory`; 0 leaves every slot 0).
    pub swap: i64,
    /// `TotalVirtualMemory` (KB), if known.
    pub total_virtual_memory: Option<i64>,
    /// Detected devices of custom resources (GPUs, ...): name to device
    /// ids. This also stands for what a `MACHINE_RESOURCE_INVENTORY_<name>`
    /// script would report.
    pub resources: BTreeMap<String, Vec<String>>,
    /// Custom resources detected as a bare quantity (no device ids).
    pub counts: BTreeMap<String, f64>,
    /// Attributes published as they are in every slot ad (Arch, OpSys,
    /// OpSysMajorVer, ...), in order.
    pub attributes: Vec<(String, Expr)>,
}

impl Default for Machine {
    fn default() -> Machine {
        Machine {
            name: "localhost".to_string(),
            cpus: 1,
            memory: 1024,
            disk: 1_000_000,
            swap: 0,
            total_virtual_memory: None,
            resources: BTreeMap::new(),
            counts: BTreeMap::new(),
            attributes: Vec::new(),
        }
    }
}

/// A value of the TOML subset.
enum TomlValue {
    Str(String),
    Int(i64),
    Other(String),
    Array(Vec<String>),
}

fn machine_err(origin: &str, line: usize, message: impl Into<String>) -> SlotError {
    SlotError::Machine { origin: origin.to_string(), line, message: message.into() }
}

/// Removes a `#` comment that is not inside a string.
fn strip_comment(line: &str) -> &str {
    let mut in_str = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            '\\' if in_str => escaped = !escaped,
            '"' if !escaped => in_str = !in_str,
            '#' if !in_str => return &line[..i],
            _ => escaped = false,
        }
        if c != '\\' {
            escaped = false;
        }
    }
    line
}

fn parse_string(text: &str) -> Option<String> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                c => out.push(c),
            }
        } else if c == '"' {
            return None;
        } else {
            out.push(c);
        }
    }
    Some(out)
}

fn parse_value(text: &str) -> Option<TomlValue> {
    let t = text.trim();
    if t.starts_with('"') {
        return parse_string(t).map(TomlValue::Str);
    }
    if let Some(inner) = t.strip_prefix('[') {
        let inner = inner.strip_suffix(']')?;
        let mut items = Vec::new();
        for part in inner.split(',') {
            let p = part.trim();
            if p.is_empty() {
                continue;
            }
            items.push(parse_string(p)?);
        }
        return Some(TomlValue::Array(items));
    }
    if let Ok(i) = t.replace('_', "").parse::<i64>() {
        return Some(TomlValue::Int(i));
    }
    if t.is_empty() {
        return None;
    }
    Some(TomlValue::Other(t.to_string()))
}

impl Machine {
    /// Reads a machine description: top-level `name`, `cpus`, `memory`
    /// (MB), `disk` (KB), `swap` (KB), `total_virtual_memory` (KB); a
    /// `[resources]` table of custom resources (a list of device ids or a
    /// count); an `[attributes]` table of ClassAd literals published as
    /// they are. `origin` names the text in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Machine, SlotError> {
        let mut m = Machine::default();
        let mut table = String::new();
        for (n, raw) in text.lines().enumerate() {
            let line_no = n + 1;
            let line = strip_comment(raw).trim();
            if line.is_empty() {
                continue;
            }
            if let Some(name) = line.strip_prefix('[') {
                let name = name
                    .strip_suffix(']')
                    .ok_or_else(|| machine_err(origin, line_no, "expected ']' after the table name"))?
                    .trim();
                if !matches!(name, "resources" | "attributes") {
                    return Err(machine_err(
                        origin,
                        line_no,
                        format!(
                            "unknown table [{}] (expected [resources] or [attributes])",
                            classad::excerpt::quote(name)
                        ),
                    ));
                }
                table = name.to_string();
                continue;
            }
            let (key, value) =
                line.split_once('=').ok_or_else(|| machine_err(origin, line_no, "expected 'key = value'"))?;
            let key = key.trim().trim_matches('"');
            if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
                return Err(machine_err(origin, line_no, format!("bad key '{}'", classad::excerpt::quote(key))));
            }
            let value = parse_value(value).ok_or_else(|| {
                machine_err(origin, line_no, format!("expected a value for '{}'", classad::excerpt::quote(key)))
            })?;
            match table.as_str() {
                "" => {
                    let int = |v: &TomlValue| match v {
                        TomlValue::Int(i) if *i >= 0 => Ok(*i),
                        _ => Err(machine_err(
                            origin,
                            line_no,
                            format!("'{}' must be a non-negative integer", classad::excerpt::quote(key)),
                        )),
                    };
                    match key {
                        "name" => match value {
                            TomlValue::Str(s) if !s.is_empty() => m.name = s,
                            _ => return Err(machine_err(origin, line_no, "'name' must be a non-empty string")),
                        },
                        "cpus" => {
                            m.cpus = u32::try_from(int(&value)?)
                                .map_err(|_| machine_err(origin, line_no, "'cpus' is too large"))?
                        }
                        "memory" => m.memory = int(&value)?,
                        "disk" => m.disk = int(&value)?,
                        "swap" => m.swap = int(&value)?,
                        "total_virtual_memory" => m.total_virtual_memory = Some(int(&value)?),
                        _ => {
                            return Err(machine_err(
                                origin,
                                line_no,
                                format!(
                                "unknown key '{key}' (expected name, cpus, memory, disk, swap, total_virtual_memory)"
                            ),
                            ))
                        }
                    }
                }
                "resources" => match value {
                    TomlValue::Array(ids) => {
                        m.resources.insert(key.to_string(), ids);
                    }
                    TomlValue::Int(i) if i >= 0 => {
                        m.counts.insert(key.to_string(), i as f64);
                    }
                    _ => {
                        return Err(machine_err(
                            origin,
                            line_no,
                            format!(
                                "resource '{}' must be a list of device ids or a count",
                                classad::excerpt::quote(key)
                            ),
                        ))
                    }
                },
                _ => {
                    let text = match &value {
                        TomlValue::Str(s) => format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")),
                        TomlValue::Int(i) => i.to_string(),
                        TomlValue::Other(o) => o.clone(),
                        TomlValue::Array(items) => {
                            format!("{{ {} }}", items.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", "))
                        }
                    };
                    let expr = classad::parse_expr(&text).map_err(|e| {
                        machine_err(origin, line_no, format!("attribute '{}': {e}", classad::excerpt::quote(key)))
                    })?;
                    m.attributes.push((key.to_string(), expr));
                }
            }
        }
        Ok(m)
    }

    /// The machine as a slot ad of it describes it: host name from
    /// `Machine`, `DetectedCpus`, `DetectedMemory`, `TotalDisk`,
    /// `TotalVirtualMemory`, detected devices from `Detected<Res>` (a
    /// list of ids) or `Total<Res>`, and the given host attributes copied
    /// when present. Useful to model a machine seen in `condor_status -l`.
    ///
    /// ```
    /// use classad::ClassAd;
    /// use matchmaker::startd::slots::Machine;
    /// let ad: ClassAd = r#"[ Machine = "wn1"; DetectedCpus = 8; DetectedMemory = 32000;
    ///     TotalDisk = 5000000; MachineResources = "Cpus Memory Disk Swap GPUs";
    ///     DetectedGPUs = "GPU-1, GPU-2"; Arch = "X86_64" ]"#.parse()?;
    /// let m = Machine::from_slot_ad(&ad, &["Arch"]);
    /// assert_eq!((m.name.as_str(), m.cpus, m.memory), ("wn1", 8, 32000));
    /// assert_eq!(m.resources["GPUs"], vec!["GPU-1", "GPU-2"]);
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn from_slot_ad(ad: &classad::ClassAd, host_attributes: &[&str]) -> Machine {
        use classad::Value;
        let int = |name: &str| match ad.eval_attr(name) {
            Value::Int(i) => Some(i),
            Value::Real(r) => Some(r as i64),
            _ => None,
        };
        let mut m = Machine::default();
        if let Value::Str(s) = ad.eval_attr("Machine") {
            m.name = s.to_string();
        }
        m.cpus = int("DetectedCpus").and_then(|c| u32::try_from(c).ok()).unwrap_or(1);
        m.memory = int("DetectedMemory").unwrap_or(1024);
        m.disk = int("TotalDisk").unwrap_or(0);
        m.total_virtual_memory = int("TotalVirtualMemory");
        if let Value::Str(list) = ad.eval_attr("MachineResources") {
            for res in list.split_whitespace() {
                if ["Cpus", "Memory", "Disk", "Swap"].iter().any(|s| s.eq_ignore_ascii_case(res)) {
                    continue;
                }
                match ad.eval_attr(format!("Detected{res}").as_str()) {
                    Value::Str(ids) => {
                        let ids: Vec<String> =
                            ids.split([',', ' ']).filter(|s| !s.is_empty()).map(str::to_string).collect();
                        m.resources.insert(res.to_string(), ids);
                    }
                    _ => {
                        m.counts.insert(res.to_string(), int(&format!("Total{res}")).unwrap_or(0) as f64);
                    }
                }
            }
        }
        for name in host_attributes {
            if let Some(e) = ad.lookup(*name) {
                m.attributes.push((name.to_string(), e.clone()));
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_line() {
        for (text, line, what) in [
            ("cpus = -1\n", 1, "non-negative"),
            ("\n[oops]\n", 2, "unknown table"),
            ("name\n", 1, "key = value"),
            ("[resources]\nGPUs = \"x\"\n", 2, "device ids"),
            ("[attributes]\nA = (\n", 2, "attribute 'A'"),
            ("colour = 1\n", 1, "unknown key"),
        ] {
            let err = Machine::from_toml_str(text, "m.toml").expect_err(text);
            let msg = err.to_string();
            assert!(msg.starts_with(&format!("m.toml, line {line}:")), "{msg}");
            assert!(msg.contains(what), "{msg}");
        }
    }

    #[test]
    fn comments_and_strings() -> Result<(), SlotError> {
        let m = Machine::from_toml_str("name = \"a#b\" # host\n[resources]\nFPGA = 2\n", "x")?;
        assert_eq!(m.name, "a#b");
        assert_eq!(m.counts["FPGA"], 2.0);
        Ok(())
    }
}
