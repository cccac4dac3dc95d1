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

use super::cycle::{self, CycleLink};
use super::is_id_char;
use super::memo::Memo;
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

/// Why an expansion failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// It does not end within the limits, or grows past them.
    Limit(String),
    /// It does not end because of this cycle.
    Cycle(Vec<CycleLink>),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Limit(m) => f.write_str(m),
            Failure::Cycle(chain) => write!(f, "macro cycle: {}", cycle::describe(chain)),
        }
    }
}

/// Expands `text` against `config`. Random and unsupported `$F(...)`
/// macros stay, each with a warning in `warnings`.
pub(crate) fn expand(
    config: &Config,
    text: &str,
    mode: Mode<'_>,
    warnings: &mut Vec<String>,
) -> Result<String, String> {
    let memo = matches!(mode, Mode::All).then(|| Memo::new(config));
    expand_full(config, text, mode, warnings, None, memo).map_err(|f| f.to_string())
}

/// [`expand`], remembering plain values in `memo` (for [`Mode::All`]),
/// and on failure naming the cycle that `name`'s value (whose text `text`
/// is), or `text`, leads into.
pub(crate) fn expand_full(
    config: &Config,
    text: &str,
    mode: Mode<'_>,
    warnings: &mut Vec<String>,
    name: Option<&str>,
    mut memo: Option<Memo>,
) -> Result<String, Failure> {
    expand_in(config, text, mode, warnings, name, memo.as_mut())
}

/// [`expand_full`] with a memo that outlives it (a dump's).
pub(crate) fn expand_in(
    config: &Config,
    text: &str,
    mode: Mode<'_>,
    warnings: &mut Vec<String>,
    name: Option<&str>,
    mut memo: Option<&mut Memo>,
) -> Result<String, Failure> {
    let message = match expand_steps(config, text, mode, warnings, memo.as_deref_mut()) {
        Ok(v) => return Ok(v),
        Err(m) => m,
    };
    let mut own = rustc_hash::FxHashSet::default();
    let acyclic = match memo {
        Some(m) => &mut m.acyclic,
        None => &mut own,
    };
    match cycle::find(config, name, text, acyclic) {
        Some(chain) => Err(Failure::Cycle(chain)),
        None => Err(Failure::Limit(message)),
    }
}

/// The expansion itself: HTCondor's, step by step, with plain values
/// replaced in one step from `memo`.
fn expand_steps(
    config: &Config,
    text: &str,
    mode: Mode<'_>,
    warnings: &mut Vec<String>,
    mut memo: Option<&mut Memo>,
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
            // Name the macro expanded most often.
            let busiest = counts.iter().max_by_key(|(_, &n)| n).map_or(last_name.as_str(), |(k, _)| k.as_str());
            return Err(format!("macro expansion does not end within the limits (through $({busiest}))"));
        }
        let name_end = f.default.map_or(f.right - 1, |d| d - 1);
        let name = value[f.body..name_end].to_string();
        if let Some(memo) = memo.as_deref_mut() {
            memo.work += 1;
            if f.kind == Kind::Normal && f.default.is_none() {
                if let Some(p) = memo.plain(config, &name) {
                    // What the steps expanding `p` would add, exactly.
                    let around = value.len() - (f.right - f.dollar);
                    let all_steps = steps.saturating_add(p.steps);
                    let all_scanned = scanned.saturating_add(p.steps.saturating_mul(around)).saturating_add(p.scanned);
                    if all_steps > limits.max_expansions || all_scanned > max_scanned {
                        return Err(format!("macro expansion does not end within the limits (through $({name}))"));
                    }
                    if around + p.raw_len.max(p.peak) <= limits.max_value {
                        steps = all_steps;
                        scanned = all_scanned;
                        *counts.entry(name.to_ascii_uppercase()).or_insert(0) += 1;
                        value.replace_range(f.dollar..f.right, &p.value);
                        last_name = name;
                        continue;
                    }
                }
            }
        }
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

    /// Remembered plain values change no expansion: random values built
    /// from macro fragments expand to the same text (or both fail) with and
    /// without the memo, the limits included.
    #[test]
    fn memo_gives_htcondor_expansion() {
        const PIECES: [&str; 26] = [
            "$(A)",
            "$(B)",
            "$(c)",
            "$(D)",
            "$(E)",
            "$(A)",
            "$(B)",
            "$(c)",
            "$(D)",
            "x",
            "x",
            " ",
            ":",
            "$(",
            ")",
            "$(B:",
            "$(NOPE)",
            "$$(A)",
            "$(DOLLAR)",
            "(",
            "9",
            "$ENV(",
            "B",
            "$",
            "$(B",
            ":x",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut remembered_plain = 0;
        for round in 0..10_000 {
            let mut text = String::new();
            for name in ["A", "B", "C", "D", "E"] {
                let value: String = (0..next(5)).map(|_| PIECES[next(PIECES.len())]).collect();
                text.push_str(&format!("{name} = {value}\n"));
            }
            let limits = super::super::Limits {
                max_expansions: [2, 3, 5, 50][next(4)],
                max_value: [6, 12, 24, 200][next(4)],
                ..Default::default()
            };
            let Ok(config) = super::super::Loader::new().limits(limits).parse_str(&text, "r.conf") else { continue };
            for name in ["A", "B", "C", "D", "E"] {
                let raw = config.raw(name).unwrap_or_default();
                let mut w1 = Vec::new();
                let mut w2 = Vec::new();
                let plain = expand_steps(&config, raw, Mode::All, &mut w1, None);
                let mut memo = Memo::new(&config);
                let remembered = expand_steps(&config, raw, Mode::All, &mut w2, Some(&mut memo));
                remembered_plain += memo.plain_with_macros();
                assert_eq!(
                    plain.is_ok(),
                    remembered.is_ok(),
                    "round {round}, {name}:\n{text}{plain:?}\n{remembered:?}"
                );
                if let (Ok(a), Ok(b)) = (&plain, &remembered) {
                    assert_eq!(a, b, "round {round}, {name}:\n{text}");
                    assert_eq!(w1, w2, "round {round}, {name}:\n{text}");
                }
            }
        }
        assert!(remembered_plain > 500, "{remembered_plain}");
    }
}
