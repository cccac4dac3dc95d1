//! Remembered expansions of plain macro values, so that expanding many
//! values that share a chain of macros (a `--dump` of `A1 = $(A0)`,
//! `A2 = $(A1)`, ...) does each link once rather than once per value.
//!
//! Only values whose expansion cannot interact with the text around them
//! are remembered: literal text without `$`, `(`, `)` or `:`, and `$(NAME)`
//! references (no default) to names that are plain in turn. Replacing
//! `$(NAME)` by such a value's expansion in one step gives what HTCondor's
//! rescan-from-the-start expansion gives step by step, and the memo keeps
//! the number of steps, the text scanned and the largest intermediate
//! length, so the expansion limits apply exactly as without it.

use rustc_hash::{FxHashMap, FxHashSet};

use super::is_id_char;
use super::Config;

/// The expansion of a plain value, standing alone.
#[derive(Debug)]
pub(crate) struct Plain {
    /// The fully expanded text (no `$`, `(`, `)` or `:` in it).
    pub(crate) value: String,
    /// The length of the value as stored (what one step puts in place of
    /// `$(NAME)`).
    pub(crate) raw_len: usize,
    /// The replacements expanding the stored value takes.
    pub(crate) steps: usize,
    /// The bytes those replacements scan, the value standing alone.
    pub(crate) scanned: usize,
    /// The longest the value grows to after one of those replacements.
    pub(crate) peak: usize,
}

#[derive(Debug)]
enum Slot {
    Plain(Plain),
    /// Not plain (or too large to keep): expanded step by step.
    Other,
}

/// The remembered expansions of one run of lookups (a dump, one value).
#[derive(Debug)]
pub(crate) struct Memo {
    slots: FxHashMap<String, Slot>,
    stored: usize,
    budget: usize,
    max_value: usize,
    /// The names (lowercase) known to lead into no macro cycle.
    pub(crate) acyclic: FxHashSet<String>,
    /// Units of work done (values examined, parts joined, replacements
    /// made by the expander): what tests measure linearity by.
    pub(crate) work: usize,
}

/// One piece of a plain value.
#[derive(Clone, Copy)]
enum Part<'a> {
    Text(&'a str),
    Ref(&'a str),
}

/// Splits a value into literal text and `$(NAME)` references, or `None`
/// if it is not plain.
fn parts(raw: &str) -> Option<Vec<Part<'_>>> {
    let b = raw.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut start) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'$' => {
                if b.get(i + 1) != Some(&b'(') {
                    return None;
                }
                let s = i + 2;
                let mut j = s;
                while j < b.len() && is_id_char(b[j]) {
                    j += 1;
                }
                if j == s || b.get(j) != Some(&b')') || raw[s..j].eq_ignore_ascii_case("DOLLAR") {
                    return None;
                }
                if start < i {
                    out.push(Part::Text(&raw[start..i]));
                }
                out.push(Part::Ref(&raw[s..j]));
                i = j + 1;
                start = i;
            }
            b'(' | b')' | b':' => return None,
            _ => i += 1,
        }
    }
    if start < b.len() {
        out.push(Part::Text(&raw[start..]));
    }
    Some(out)
}

/// A value being joined: its parts and what is expanded so far.
struct Frame<'c> {
    key: String,
    parts: Vec<Part<'c>>,
    next: usize,
    raw_len: usize,
    value: String,
    /// The current length of the value standing alone.
    len: usize,
    steps: usize,
    scanned: usize,
    peak: usize,
}

impl Memo {
    /// An empty memo for `config`'s limits.
    pub(crate) fn new(config: &Config) -> Memo {
        let max_value = config.limits.max_value;
        Memo {
            slots: FxHashMap::default(),
            stored: 0,
            budget: max_value.saturating_mul(16),
            max_value,
            acyclic: FxHashSet::default(),
            work: 0,
        }
    }

    /// The expansion of `name`'s value if it is plain.
    pub(crate) fn plain(&mut self, config: &Config, name: &str) -> Option<&Plain> {
        let key = name.to_ascii_lowercase();
        if !self.slots.contains_key(&key) {
            self.compute(config, key.clone());
        }
        match self.slots.get(&key) {
            Some(Slot::Plain(p)) => Some(p),
            _ => None,
        }
    }

    /// Starts examining `key`'s value: a frame to join, or the slot
    /// stored at once.
    fn open<'c>(&mut self, config: &'c Config, key: String) -> Option<Frame<'c>> {
        self.work += 1;
        let raw = config.raw(&key).unwrap_or_default();
        match parts(raw) {
            None => {
                self.slots.insert(key, Slot::Other);
                None
            }
            Some(parts) => Some(Frame {
                key,
                parts,
                next: 0,
                raw_len: raw.len(),
                value: String::new(),
                len: raw.len(),
                steps: 0,
                scanned: 0,
                peak: 0,
            }),
        }
    }

    /// Joins `root`'s value and those it refers to, depth first without
    /// recursion (a chain may be as long as the file).
    fn compute(&mut self, config: &Config, root: String) {
        let mut stack: Vec<Frame<'_>> = Vec::new();
        let mut open: FxHashSet<String> = FxHashSet::default();
        if let Some(f) = self.open(config, root) {
            open.insert(f.key.clone());
            stack.push(f);
        }
        while let Some(top) = stack.last_mut() {
            let Some(part) = top.parts.get(top.next).copied() else {
                let Some(f) = stack.pop() else { break };
                open.remove(&f.key);
                self.store(f);
                continue;
            };
            self.work += 1;
            match part {
                Part::Text(t) => {
                    top.value.push_str(t);
                    top.next += 1;
                }
                Part::Ref(name) => {
                    let key = name.to_ascii_lowercase();
                    match self.slots.get(&key) {
                        Some(Slot::Plain(p)) => {
                            join(top, name.len() + 3, p);
                            top.next += 1;
                        }
                        Some(Slot::Other) => {
                            // Not plain below: neither is this one.
                            if let Some(f) = stack.pop() {
                                open.remove(&f.key);
                                self.slots.insert(f.key, Slot::Other);
                            }
                        }
                        None if open.contains(&key) => {
                            // A cycle: expanded step by step (and reported).
                            if let Some(f) = stack.pop() {
                                open.remove(&f.key);
                                self.slots.insert(f.key, Slot::Other);
                            }
                        }
                        None => {
                            if let Some(f) = self.open(config, key) {
                                open.insert(f.key.clone());
                                stack.push(f);
                            }
                        }
                    }
                }
            }
        }
    }

    /// How many values with macros are remembered as plain.
    #[cfg(test)]
    pub(crate) fn plain_with_macros(&self) -> usize {
        self.slots.values().filter(|s| matches!(s, Slot::Plain(p) if p.steps > 0)).count()
    }

    fn store(&mut self, f: Frame<'_>) {
        let slot = if f.value.len() > self.max_value || self.stored.saturating_add(f.value.len()) > self.budget {
            Slot::Other
        } else {
            self.stored += f.value.len();
            Slot::Plain(Plain { value: f.value, raw_len: f.raw_len, steps: f.steps, scanned: f.scanned, peak: f.peak })
        };
        self.slots.insert(f.key, slot);
    }
}

/// Accounts for one replacement of a `$(NAME)` (`token` bytes long) by a
/// plain value, and the replacements expanding that value takes.
fn join(f: &mut Frame<'_>, token: usize, p: &Plain) {
    f.scanned = f.scanned.saturating_add(f.len);
    let around = f.len - token;
    f.peak = f.peak.max(around + p.raw_len);
    f.scanned = f.scanned.saturating_add(p.steps.saturating_mul(around)).saturating_add(p.scanned);
    if p.steps > 0 {
        f.peak = f.peak.max(around + p.peak);
    }
    f.len = around + p.value.len();
    f.steps = f.steps.saturating_add(1).saturating_add(p.steps);
    f.value.push_str(&p.value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_values_are_split() {
        assert!(parts("a $(B) c").is_some());
        for not_plain in ["$(B:x)", "$$(B)", "$ENV(B)", "$(DOLLAR)", "host:9618", "f(x)", "$(", "$()"] {
            assert!(parts(not_plain).is_none(), "{not_plain}");
        }
    }
}
