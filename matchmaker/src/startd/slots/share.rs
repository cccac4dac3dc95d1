//! `SLOT_TYPE_<N>` descriptions: what share of the machine one slot of a
//! type asks for.
//!
//! A description is a list of `resource=share` items (separated by commas,
//! spaces or tabs, or by newlines when it has any) and at most one bare
//! share that applies to every resource not listed. A share is `auto`
//! (an equal part of what the fixed shares leave), a percentage (`25%`), a
//! fraction (`1/4`), `minimal` (fractional CPUs allowed), or an amount
//! (`2` CPUs, `1024` MB). Resource names may be abbreviated (`c`, `mem`,
//! `d`) as the startd allows; disk and swap only take percentages or
//! fractions. A custom resource may carry a constraint on its devices
//! after a colon (`gpus=1 : Capability > 7`).
//!
//! ```
//! use matchmaker::startd::slots::{parse_slot_type, Share};
//!
//! let d = parse_slot_type("cpus=2, memory=25%, disk=1/4", 1)?;
//! assert_eq!(d.cpus, Share::Amount(2.0));
//! assert_eq!(d.memory, Share::Fraction(0.25));
//! assert_eq!(d.disk, Share::Fraction(0.25));
//! assert_eq!(d.swap, Share::Auto); // not listed: the default share
//! let half = parse_slot_type("50%", 2)?;
//! assert_eq!(half.cpus, Share::Fraction(0.5));
//! assert!(parse_slot_type("disk=100", 3).is_err()); // disk takes a fraction
//! # Ok::<(), matchmaker::startd::slots::SlotError>(())
//! ```

use super::SlotError;

/// One resource's share in a slot type description.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Share {
    /// An equal part of what the fixed shares leave.
    Auto,
    /// A part of the machine's total, between 0 and 1.
    Fraction(f64),
    /// An absolute amount (CPUs, MB of memory, units of a custom resource).
    Amount(f64),
}

impl Share {
    /// The quantity this share gives of a machine total, `None` for `auto`.
    /// Fractions of an integer resource are truncated by the caller.
    pub fn of(self, total: f64) -> Option<f64> {
        match self {
            Share::Auto => None,
            Share::Fraction(f) => Some(f * total),
            Share::Amount(a) => Some(a),
        }
    }
}

/// A parsed `SLOT_TYPE_<N>` description.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotTypeDescription {
    /// CPUs.
    pub cpus: Share,
    /// Memory, in MB.
    pub memory: Share,
    /// Disk: `Auto` or a fraction.
    pub disk: Share,
    /// Swap (virtual memory): `Auto` or a fraction.
    pub swap: Share,
    /// Custom resources named in the description: name as written, share,
    /// and device constraint if any.
    pub custom: Vec<(String, Share, Option<String>)>,
    /// The share of everything not listed.
    pub default: Share,
    /// `minimal` was given: the slot may have less than one CPU.
    pub fractional_cpus: bool,
}

const MINIMAL_SHARE: f64 = 1.0 / 128.0;

/// A number as C's `atof` reads it: the longest numeric prefix, 0 if none.
pub(crate) fn atof(text: &str) -> f64 {
    let t = text.trim_start();
    let bytes = t.as_bytes();
    let mut end = 0;
    let mut seen_digit = false;
    let mut seen_dot = false;
    let mut seen_exp = false;
    while end < bytes.len() {
        let c = bytes[end];
        if c.is_ascii_digit() {
            seen_digit = true;
        } else if (c == b'+' || c == b'-') && (end == 0 || (seen_exp && matches!(bytes[end - 1], b'e' | b'E'))) {
        } else if c == b'.' && !seen_dot && !seen_exp {
            seen_dot = true;
        } else if (c == b'e' || c == b'E') && seen_digit && !seen_exp {
            seen_exp = true;
        } else {
            break;
        }
        end += 1;
    }
    // back off a dangling exponent or sign
    let mut candidate = &t[..end];
    while !candidate.is_empty() && candidate.parse::<f64>().is_err() {
        candidate = &candidate[..candidate.len() - 1];
    }
    candidate.parse().unwrap_or(0.0)
}

/// How a share value was written.
enum Parsed {
    Share(Share),
    Minimal,
}

fn parse_share(text: &str, type_id: u32) -> Result<Parsed, SlotError> {
    if text.eq_ignore_ascii_case("auto") || text.eq_ignore_ascii_case("automatic") {
        return Ok(Parsed::Share(Share::Auto));
    }
    if text.eq_ignore_ascii_case("min") || text.eq_ignore_ascii_case("minimal") {
        return Ok(Parsed::Minimal);
    }
    if text.contains('%') {
        return Ok(Parsed::Share(Share::Fraction(atof(text) / 100.0)));
    }
    if let Some(slash) = text.find('/') {
        let denom = atof(&text[slash + 1..]);
        if denom <= 0.0 {
            return Err(SlotError::BadSlotType { type_id, message: format!("can't parse \"{text}\" (bad fraction)") });
        }
        return Ok(Parsed::Share(Share::Fraction(atof(text) / denom)));
    }
    Ok(Parsed::Share(Share::Amount(atof(text))))
}

/// Whether `attr` abbreviates `word` (a case-insensitive prefix of it).
fn abbreviates(attr: &str, word: &str) -> bool {
    attr.len() <= word.len() && word[..attr.len()].eq_ignore_ascii_case(attr)
}

/// Parses a `SLOT_TYPE_<N>` description. `custom` resources are recognised
/// later (against the machine's), so every `name=share` item whose name is
/// not a standard resource is kept in [`SlotTypeDescription::custom`].
///
/// An empty description is all `auto`. Errors: a bare share that is not a
/// percentage, fraction or `auto`; an item with no value; an amount for
/// disk or swap; a fraction with a zero denominator.
pub fn parse_slot_type(text: &str, type_id: u32) -> Result<SlotTypeDescription, SlotError> {
    let mut d = SlotTypeDescription {
        cpus: Share::Auto,
        memory: Share::Auto,
        disk: Share::Auto,
        swap: Share::Auto,
        custom: Vec::new(),
        default: Share::Auto,
        fractional_cpus: false,
    };
    let (mut cpus, mut memory, mut disk, mut swap) = (None, None, None, None);
    let items: Vec<&str> = if text.contains('\n') {
        text.split('\n').map(str::trim).filter(|s| !s.is_empty()).collect()
    } else {
        text.split([',', ' ', '\t', '\r']).filter(|s| !s.is_empty()).collect()
    };
    for item in items {
        let Some((attr, val)) = item.split_once('=') else {
            match parse_share(item, type_id)? {
                Parsed::Minimal => {
                    d.fractional_cpus = true;
                    d.default = Share::Fraction(MINIMAL_SHARE);
                }
                Parsed::Share(Share::Amount(a)) if a != 0.0 => {
                    return Err(SlotError::BadSlotType {
                        type_id,
                        message: format!(
                            "\"{item}\" is invalid: give a percentage (like \"25%\"), a fraction (like \"1/4\"), or list all resources (like \"c=1, r=25%, s=25%, d=25%\")"
                        ),
                    })
                }
                Parsed::Share(Share::Fraction(f)) if !(0.0..=1.0).contains(&f) => {
                    return Err(SlotError::BadSlotType {
                        type_id,
                        message: format!("\"{item}\" is invalid: a share must be between 0% and 100%"),
                    })
                }
                Parsed::Share(s) => d.default = s,
            }
            continue;
        };
        let attr = attr.trim();
        let mut val = val.trim();
        if val.is_empty() {
            return Err(SlotError::BadSlotType { type_id, message: format!("can't parse \"{item}\" (no value)") });
        }
        let mut constraint = None;
        if let Some((v, c)) = val.split_once(':') {
            constraint = Some(c.trim().to_string());
            val = v.trim();
        }
        let share = match parse_share(val, type_id)? {
            Parsed::Minimal => Share::Fraction(MINIMAL_SHARE),
            Parsed::Share(s) => s,
        };
        if abbreviates(attr, "cpus") {
            cpus = Some(share);
        } else if abbreviates(attr, "ram") || abbreviates(attr, "memory") {
            memory = Some(share);
        } else if abbreviates(attr, "swap") || abbreviates(attr, "virtualmemory") {
            if matches!(share, Share::Amount(a) if a > 0.0) {
                return Err(SlotError::BadSlotType {
                    type_id,
                    message: format!("\"{item}\": give swap as a percent or fraction"),
                });
            }
            swap = Some(share);
        } else if abbreviates(attr, "disk") {
            if matches!(share, Share::Amount(a) if a > 0.0) {
                return Err(SlotError::BadSlotType {
                    type_id,
                    message: format!("\"{item}\": give disk as a percent or fraction"),
                });
            }
            disk = Some(share);
        } else {
            d.custom.push((attr.to_string(), share, constraint));
        }
    }
    let fill = |s: Option<Share>| s.unwrap_or(d.default);
    d.cpus = fill(cpus);
    d.memory = fill(memory);
    d.disk = fill(disk);
    d.swap = fill(swap);
    // An amount of 0 for disk or swap is a fraction of 0.
    for s in [&mut d.disk, &mut d.swap] {
        if let Share::Amount(a) = *s {
            *s = Share::Fraction(-a);
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atof_reads_prefixes() {
        assert_eq!(atof("25%"), 25.0);
        assert_eq!(atof(" 1.5e1x"), 15.0);
        assert_eq!(atof("x"), 0.0);
        assert_eq!(atof("3e"), 3.0);
        assert_eq!(atof("-2"), -2.0);
    }

    #[test]
    fn abbreviations_and_defaults() -> Result<(), SlotError> {
        let d = parse_slot_type("c=1, r=512, d=10%, 25%", 1)?;
        assert_eq!(d.cpus, Share::Amount(1.0));
        assert_eq!(d.memory, Share::Amount(512.0));
        assert_eq!(d.disk, Share::Fraction(0.1));
        assert_eq!(d.swap, Share::Fraction(0.25));
        let e = parse_slot_type("", 1)?;
        assert_eq!(e.cpus, Share::Auto);
        let m = parse_slot_type("minimal", 1)?;
        assert!(m.fractional_cpus);
        let n = parse_slot_type("cpus=1\nGPUs=1 : Capability > 7\n", 1)?;
        assert_eq!(n.custom, vec![("GPUs".to_string(), Share::Amount(1.0), Some("Capability > 7".to_string()))]);
        Ok(())
    }

    #[test]
    fn refusals() {
        for bad in ["4", "cpus=", "swap=100", "disk=1/0", "150%"] {
            let err = parse_slot_type(bad, 7).expect_err(bad);
            assert!(err.to_string().starts_with("bad description of slot type 7"), "{err}");
        }
    }
}
