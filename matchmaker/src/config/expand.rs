//! Macro expansion: `$(NAME)`, `$(NAME:default)`, `$ENV(X)`,
//! `$(DOLLAR)`, with `$$(...)` kept for the negotiator and the other
//! `$FUNCTION(...)` macros left as they are.
//!
//! The scan follows HTCondor's: the first macro found is replaced and the
//! scan starts again from the beginning, so the replacement is expanded in
//! turn. A name is made of letters, digits and
//! `_./`; after a `:` the default may also hold `$ ,\:` and parenthesised
//! text, so `$(A:$(B))` is one macro whose default is `$(B)`, while in
//! `$($(N))` the inner macro is found first.

use super::Config;

/// The kinds of `$...(` prefixes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// `$(NAME)`.
    Normal,
    /// `$ENV(NAME)`.
    Env,
    /// `$RANDOM_INTEGER`, `$RANDOM_CHOICE`: random, left unexpanded.
    Random,
    /// `$INT`, `$REAL`, `$STRING`, `$EVAL`, `$CHOICE`, `$SUBSTR`,
    /// `$BASENAME`, `$DIRNAME`, `$F...`: not supported, left unexpanded.
    Unsupported,
}

/// One macro found in a text.
struct Found {
    kind: Kind,
    dollar: usize,
    body: usize,
    /// Offset of the default (after the `:`), if any.
    default: Option<usize>,
    /// One past the closing `)`.
    right: usize,
}

fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'/'
}

fn classify(prefix: &[u8]) -> Option<Kind> {
    if prefix.len() == 1 {
        return Some(Kind::Normal);
    }
    if prefix[1] == b'$' {
        return None;
    }
    let name = &prefix[1..];
    if name[0] == b'F' && name[1..].iter().all(|c| b"pnxdqabfwu".contains(&(c | 0x20))) {
        return Some(Kind::Unsupported);
    }
    match name {
        b"ENV" => Some(Kind::Env),
        b"RANDOM_CHOICE" | b"RANDOM_INTEGER" => Some(Kind::Random),
        b"CHOICE" | b"SUBSTR" | b"INT" | b"REAL" | b"STRING" | b"EVAL" | b"BASENAME" | b"DIRNAME" => {
            Some(Kind::Unsupported)
        }
        _ => None,
    }
}

/// Finds the next macro at or after `from` that `accept` takes; the ones
/// it refuses are stepped over.
fn next_macro(s: &[u8], mut from: usize, accept: &mut dyn FnMut(Kind, &[u8]) -> bool) -> Option<Found> {
    'scan: loop {
        let d = from + memchr::memchr(b'$', s.get(from..)?)?;
        let mut p = d + 1;
        if s.get(p) == Some(&b'$') {
            p += 1;
        }
        while p < s.len() && (s[p].is_ascii_alphanumeric() || s[p] == b'_') {
            p += 1;
        }
        if s.get(p) != Some(&b'(') {
            from = p.max(d + 1);
            continue;
        }
        let Some(kind) = classify(&s[d..p]) else {
            from = p;
            continue;
        };
        let body = p + 1;
        let mut v = body;
        let mut after_colon = 0;
        if matches!(kind, Kind::Normal | Kind::Env) {
            while v < s.len() && s[v] != b')' {
                let c = s[v];
                v += 1;
                if c == b':' && after_colon == 0 {
                    after_colon = v - body;
                    continue;
                } else if after_colon > 0 {
                    if c == b'(' {
                        if let Some(q) = memchr::memchr(b')', &s[v..]) {
                            v += q + 1;
                            continue;
                        }
                    } else if b"$ ,\\:".contains(&c) {
                        continue;
                    }
                }
                if !is_id_char(c) {
                    from = body;
                    continue 'scan;
                }
            }
        } else {
            while v < s.len() && s[v] != b')' {
                v += 1;
            }
        }
        if v >= s.len() {
            from = body;
            continue;
        }
        let name_end = if after_colon > 0 { body + after_colon - 1 } else { v };
        if !accept(kind, &s[body..name_end]) {
            from = v;
            continue;
        }
        return Some(Found {
            kind,
            dollar: d,
            body,
            default: (after_colon > 0).then(|| body + after_colon),
            right: v + 1,
        });
    }
}

/// What to expand.
pub(crate) enum Mode<'a> {
    /// Every macro.
    All,
    /// Only `$(NAME)` and `$(NAME:default)` of this name (references of a
    /// value to its own previous value, expanded when it is set).
    SelfOnly(&'a str),
}

/// Expands `text` against `config`. Random and unsupported `$F(...)`
/// macros stay, each with a warning in `warnings`.
pub(crate) fn expand(
    config: &Config,
    text: &str,
    mode: Mode<'_>,
    warnings: &mut Vec<String>,
) -> Result<String, String> {
    let limits = &config.limits;
    let mut value = text.to_string();
    let mut steps = 0usize;
    let mut last_name = String::new();
    // Each step rescans the value from its start: bound the total work too,
    // so that a cycle that makes the value grow fails fast.
    let mut scanned = 0usize;
    let max_scanned = limits.max_value.saturating_mul(16);
    let mut counts: rustc_hash::FxHashMap<String, u32> = rustc_hash::FxHashMap::default();
    loop {
        let found = {
            let bytes = value.as_bytes();
            next_macro(bytes, 0, &mut |kind, name| match (&mode, kind) {
                (Mode::All, Kind::Normal) => !name.eq_ignore_ascii_case(b"DOLLAR"),
                (Mode::All, Kind::Env) => true,
                (Mode::All, _) => {
                    let w = format!(
                        "a function macro with arguments ({}) is left unexpanded: $RANDOM_INTEGER, $RANDOM_CHOICE and the other $FUNCTION(...) macros are not supported",
                        String::from_utf8_lossy(name)
                    );
                    if !warnings.contains(&w) {
                        warnings.push(w);
                    }
                    false
                }
                (Mode::SelfOnly(me), Kind::Normal) => name.eq_ignore_ascii_case(me.as_bytes()),
                (Mode::SelfOnly(_), _) => false,
            })
        };
        let Some(f) = found else { break };
        steps += 1;
        scanned = scanned.saturating_add(value.len());
        if steps > limits.max_expansions || scanned > max_scanned {
            // Name the macro expanded most often: the likely cycle.
            let busiest = counts.iter().max_by_key(|(_, &n)| n).map_or(last_name.as_str(), |(k, _)| k.as_str());
            return Err(format!("macro expansion does not end within the limits (a cycle through $({busiest})?)"));
        }
        let name_end = f.default.map_or(f.right - 1, |d| d - 1);
        let name = value[f.body..name_end].to_string();
        let default = f.default.map(|d| value[d..f.right - 1].to_string());
        let found_value: Option<String> = match f.kind {
            Kind::Normal => config.raw(&name).map(str::to_string),
            Kind::Env => match config.env_var(&name) {
                Some(v) => Some(v),
                None if default.is_none() => Some("UNDEFINED".to_string()),
                None => None,
            },
            Kind::Random | Kind::Unsupported => None,
        };
        let replacement = match found_value {
            Some(v) if !v.is_empty() => v,
            _ => default.unwrap_or_default(),
        };
        if value.len() - (f.right - f.dollar) + replacement.len() > limits.max_value {
            return Err(format!("the value grows past {} bytes (through $({name}))", limits.max_value));
        }
        *counts.entry(name.to_ascii_uppercase()).or_insert(0) += 1;
        last_name = name;
        value.replace_range(f.dollar..f.right, &replacement);
        // The next scan starts again from the beginning (as HTCondor 23.9
        // does), so `$($(N))` expands the outer macro once the inner one is
        // replaced.
    }
    if matches!(mode, Mode::All) {
        // $(DOLLAR) is a dollar sign, put in last so it starts no macro.
        let mut from = 0;
        while let Some(f) = next_macro(value.as_bytes(), from, &mut |kind, name| {
            kind == Kind::Normal && name.eq_ignore_ascii_case(b"DOLLAR")
        }) {
            value.replace_range(f.dollar..f.right, "$");
            from = f.dollar + 1;
        }
    }
    Ok(value)
}

/// Whether `text` refers to a random macro (`$RANDOM_INTEGER(...)`,
/// `$RANDOM_CHOICE(...)`).
#[cfg(test)]
fn has_random(text: &str) -> bool {
    next_macro(text.as_bytes(), 0, &mut |k, _| k == Kind::Random).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finder_follows_htcondor() {
        assert!(has_random("x $RANDOM_INTEGER(1,10) y"));
        assert!(!has_random("$$(RANDOM_INTEGER)"));
        let s = b"$($(A)) $(B:$(C)) $$(D)";
        let f = next_macro(s, 0, &mut |_, _| true).expect("a macro");
        assert_eq!((f.dollar, f.right), (2, 6));
        let f = next_macro(s, 7, &mut |_, _| true).expect("a macro");
        assert_eq!((f.dollar, f.right, f.default), (8, 17, Some(12)));
        assert!(next_macro(s, 17, &mut |_, _| true).is_none());
    }
}
