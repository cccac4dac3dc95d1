//! Slot names: `slot<N>@host`, `slot<N>_<M>@host` for a dynamic slot,
//! built from the configuration's prefixes and the startd's name, and
//! found again from a name, a short name or an id.

use super::slot_config::Policies;
use super::{SlotKind, SlotResources};
use crate::config::Config;
use crate::startd::slots::Machine;

/// What the names of a startd's slots are made of.
#[derive(Clone, Copy)]
pub(crate) struct Naming<'a> {
    /// The startd's configuration.
    pub config: &'a Config,
    /// What the configuration says of the slots (the name prefixes).
    pub policies: &'a Policies,
    /// The startd's name (see [`host_name`]).
    pub host: &'a str,
}

impl Naming<'_> {
    /// The name of a slot: `slot<N>@host`, `slot<N>_<M>@host` for a
    /// dynamic slot (the prefix is `SLOT_TYPE_<N>_NAME_PREFIX`, else
    /// `STARTD_RESOURCE_PREFIX`, else `slot`).
    pub fn slot_name(&self, slot: &SlotResources) -> String {
        let knobs = self.policies.knobs(self.config, slot.type_id);
        let mut name = String::with_capacity(knobs.prefix.len() + self.host.len() + 12);
        name.push_str(&knobs.prefix);
        push_number(&mut name, i64::from(slot.id));
        if slot.kind == SlotKind::Dynamic {
            name.push('_');
            push_number(&mut name, i64::from(slot.sub_id));
        }
        name.push('@');
        name.push_str(self.host);
        name
    }

    /// What follows the `slot<N>` (or `slot<N>_<M>`) part of `key` when
    /// `key` starts with it, the name of `slot` being built so.
    fn after_short_name<'k>(&self, slot: &SlotResources, key: &'k str) -> Option<&'k str> {
        let knobs = self.policies.knobs(self.config, slot.type_id);
        let rest = strip_number(key.strip_prefix(knobs.prefix.as_str())?, slot.id)?;
        if slot.kind == SlotKind::Dynamic {
            strip_number(rest.strip_prefix('_')?, slot.sub_id)
        } else {
            Some(rest)
        }
    }

    /// Whether `name` is the name of `slot` (as [`slot_name`](Self::slot_name)
    /// gives it), without building the name.
    pub fn is_named(&self, slot: &SlotResources, name: &str) -> bool {
        self.after_short_name(slot, name).and_then(|rest| rest.strip_prefix('@')) == Some(self.host)
    }

    /// Finds a static or partitionable slot of `slots` (a layout's) by
    /// name (`slot1@host`), by short name (`slot1`) or by id (`1`).
    pub fn find_slot(&self, slots: &[SlotResources], key: &str) -> Option<usize> {
        slots.iter().position(|s| {
            let prefix_has_at = self.policies.knobs(self.config, s.type_id).prefix.contains('@');
            if prefix_has_at {
                // the short name is what comes before the first '@'
                let name = self.slot_name(s);
                return name == key || name.split('@').next() == Some(key) || s.id.to_string() == key;
            }
            match self.after_short_name(s, key) {
                Some("") => true,
                Some(rest) if rest.strip_prefix('@') == Some(self.host) => true,
                _ => strip_number(key, s.id) == Some(""),
            }
        })
    }
}

/// The name of the startd of `machine` (`STARTD_NAME`, with the machine's
/// name after an `@` unless it has one; else the machine's name).
pub(crate) fn host_name(config: &Config, machine: &Machine) -> String {
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
fn decimal(n: u64, buffer: &mut [u8; 20]) -> &[u8] {
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
