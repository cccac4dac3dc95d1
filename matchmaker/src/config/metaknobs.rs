//! Metaknobs: the texts `use CATEGORY : NAME(args)` stands for, and the
//! substitution of their arguments (`$(1)`, `$(2:default)`, `$(1?)`,
//! `$(2+)`, `$(0)`, `$(0#)`).
//!
//! The texts are HTCondor 23.9's own, embedded from `metaknobs.txt`
//! (regenerated from `condor_config_val use CATEGORY:NAME` by
//! `matchmaker/tests/data/config/generate.py`).

use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

const TABLE: &str = include_str!("metaknobs.txt");

/// One metaknob.
pub(crate) struct Knob {
    /// The category as the table spells it (`POLICY`).
    pub(crate) category: Arc<str>,
    /// The name as the table spells it (`PartitionableSlot`).
    pub(crate) name: Arc<str>,
    /// Its text.
    pub(crate) text: String,
}

struct Table {
    knobs: FxHashMap<(String, String), Knob>,
    categories: FxHashMap<String, Arc<str>>,
}

fn table() -> &'static Table {
    static TABLE_CELL: OnceLock<Table> = OnceLock::new();
    TABLE_CELL.get_or_init(|| {
        let mut knobs = FxHashMap::default();
        let mut categories: FxHashMap<String, Arc<str>> = FxHashMap::default();
        let mut current: Option<Knob> = None;
        let finish = |k: Option<Knob>, knobs: &mut FxHashMap<(String, String), Knob>| {
            if let Some(k) = k {
                knobs.insert((k.category.to_ascii_lowercase(), k.name.to_ascii_lowercase()), k);
            }
        };
        for line in TABLE.lines() {
            if let Some(head) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                finish(current.take(), &mut knobs);
                let (cat, name) = head.split_once(':').unwrap_or((head, ""));
                let category = categories.entry(cat.to_ascii_lowercase()).or_insert_with(|| Arc::from(cat)).clone();
                current = Some(Knob { category, name: Arc::from(name), text: String::new() });
            } else if let Some(k) = current.as_mut() {
                k.text.push_str(line);
                k.text.push('\n');
            }
        }
        finish(current.take(), &mut knobs);
        Table { knobs, categories }
    })
}

/// The metaknob `category:name` (any case).
pub(crate) fn find(category: &str, name: &str) -> Option<&'static Knob> {
    table().knobs.get(&(category.to_ascii_lowercase(), name.to_ascii_lowercase()))
}

/// Whether `category` is a metaknob category (`ROLE`, `POLICY`, ...).
pub(crate) fn is_category(category: &str) -> bool {
    table().categories.contains_key(&category.to_ascii_lowercase())
}

/// Splits the right-hand side of `use CAT : A, B(x, y) C` into knob names
/// and argument texts.
pub(crate) fn split_uses(rhs: &str) -> Vec<(String, String)> {
    let b = rhs.as_bytes();
    let mut out = Vec::new();
    let mut p = 0;
    loop {
        while p < b.len() && (b[p].is_ascii_whitespace() || b[p] == b',') {
            p += 1;
        }
        let start = p;
        while p < b.len() && !b[p].is_ascii_whitespace() && b[p] != b',' && b[p] != b'(' {
            p += 1;
        }
        if p == start {
            return out;
        }
        let knob = rhs[start..p].to_string();
        while p < b.len() && b[p].is_ascii_whitespace() {
            p += 1;
        }
        let mut args = String::new();
        if p < b.len() && b[p] == b'(' {
            if let Some(close) = close_paren(b, p) {
                args = rhs[p + 1..close].to_string();
                p = close;
            }
            p += 1;
            while p < b.len() && b[p].is_ascii_whitespace() {
                p += 1;
            }
        }
        out.push((knob, args));
    }
}

/// The `)` closing the `(` at `open`, with nested `()` and `[]`.
fn close_paren(b: &[u8], open: usize) -> Option<usize> {
    let mut stack = vec![b')'];
    let mut p = open + 1;
    while p < b.len() {
        let c = b[p];
        if Some(&c) == stack.last() {
            stack.pop();
            if stack.is_empty() {
                return Some(p);
            }
        } else if c == b'(' {
            stack.push(b')');
        } else if c == b'[' {
            stack.push(b']');
        }
        if stack.len() > 25 {
            return None;
        }
        p += 1;
    }
    None
}

/// Whether `text` has a `$(<digit>...)` argument reference.
pub(crate) fn has_args(text: &str) -> bool {
    text.match_indices("$(").any(|(i, _)| text.as_bytes().get(i + 2).is_some_and(|c| c.is_ascii_digit()))
}

/// The comma-separated arguments, trimmed.
fn split_args(args: &str) -> Vec<&str> {
    args.split(',').map(str::trim).filter(|a| !a.is_empty()).collect()
}

/// Replaces `$(N)`, `$(N:default)`, `$(N?)`, `$(N+)`, `$(N+:default)`,
/// `$(0)` and `$(0#)` in `text` by the arguments.
pub(crate) fn substitute_args(text: &str, args: &str) -> String {
    let list = split_args(args);
    let mut out = text.to_string();
    let mut from = 0;
    // Each substitution removes one reference; the count bounds the loop.
    for _ in 0..100_000 {
        let Some((start, end, body)) = next_arg_ref(&out, from) else {
            break;
        };
        let digits_end = body.bytes().position(|c| !c.is_ascii_digit()).unwrap_or(body.len());
        let index: usize = body[..digits_end].parse().unwrap_or(0);
        let rest = &body[digits_end..];
        let (flags, default) = match rest.split_once(':') {
            Some((f, d)) => (f, Some(d)),
            None => (rest, None),
        };
        let empty_check = flags.contains('?');
        let count = flags.contains('#') || flags.contains('+');
        let value: String = if index == 0 {
            if count {
                list.len().to_string()
            } else {
                args.to_string()
            }
        } else if count {
            // All arguments from `index` on, as written.
            let mut remain = args;
            let mut ix = 1;
            let mut ok = true;
            while ix < index {
                match remain.find(',') {
                    Some(c) => remain = &remain[c + 1..],
                    None => {
                        ok = false;
                        break;
                    }
                }
                ix += 1;
            }
            let v = if ok { remain.to_string() } else { String::new() };
            match default {
                Some(d) if v.trim().is_empty() => d.to_string(),
                _ => v,
            }
        } else {
            match list.get(index - 1) {
                Some(v) => v.to_string(),
                None => default.unwrap_or("").to_string(),
            }
        };
        let value = value.trim();
        let value = if empty_check {
            if value.is_empty() {
                "0"
            } else {
                "1"
            }
        } else {
            value
        };
        out.replace_range(start..end, value);
        from = start;
    }
    out
}

/// The next `$(<digits>[?#+][:anything])` from `from`: start, end, body.
fn next_arg_ref(s: &str, mut from: usize) -> Option<(usize, usize, String)> {
    loop {
        let d = from + s.get(from..)?.find("$(")?;
        let body_start = d + 2;
        let b = s.as_bytes();
        let mut p = body_start;
        let mut ok = p < b.len() && b[p].is_ascii_digit();
        let mut after_colon = false;
        while ok && p < b.len() && b[p] != b')' {
            let c = b[p];
            if after_colon {
                if c == b'(' {
                    match s[p..].find(')') {
                        Some(q) => p += q + 1,
                        None => ok = false,
                    }
                    continue;
                }
            } else if c == b':' {
                after_colon = true;
            } else if !(c.is_ascii_digit() || c == b'?' || c == b'#' || c == b'+') {
                ok = false;
            }
            p += 1;
        }
        if ok && p < b.len() && b[p] == b')' {
            return Some((d, p + 1, s[body_start..p].to_string()));
        }
        from = d + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_substitute() {
        assert_eq!(substitute_args("A=$(1:1) B=$(2+:100%)", ""), "A=1 B=100%");
        assert_eq!(substitute_args("A=$(1:1) B=$(2+:100%)", "2, 50%"), "A=2 B=50%");
        assert_eq!(substitute_args("$(1?) $(3?) $(0#) [$(0)]", " x , y "), "1 0 2 [x , y]");
        assert_eq!(substitute_args("$($(1))", "MEM"), "$(MEM)");
        assert_eq!(substitute_args("\"$(3+)\"", "a, b, c, d"), "\"c, d\"");
    }

    #[test]
    fn uses_split() {
        assert_eq!(
            split_uses(" A, B(x, (y)) C"),
            vec![("A".into(), "".into()), ("B".into(), "x, (y)".into()), ("C".into(), "".into())]
        );
    }

    #[test]
    fn table_has_the_policies() {
        for (c, n) in [
            ("POLICY", "ALWAYS_RUN_JOBS"),
            ("policy", "desktop"),
            ("POLICY", "UWCS_DESKTOP"),
            ("POLICY", "PREEMPT_IF"),
            ("POLICY", "HOLD_IF_MEMORY_EXCEEDED"),
            ("FEATURE", "PARTITIONABLESLOT"),
        ] {
            assert!(find(c, n).is_some(), "{c}:{n}");
        }
        assert_eq!(
            &*find("feature", "partitionableslot").map(|k| k.name.clone()).unwrap_or_default(),
            "PartitionableSlot"
        );
        assert!(is_category("Role"));
    }
}
