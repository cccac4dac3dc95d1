//! Finding the macro cycle behind an expansion that does not end.
//!
//! HTCondor 23.9 expands `A = $(B)`, `B = $(A)` for ever; here expansion
//! stops at the limits, and this names the cycle: the chain of names from
//! one back to itself, each with where it is set.

use rustc_hash::{FxHashMap, FxHashSet};

use super::is_id_char;
use super::{Config, Source};

/// One name of a macro cycle and where its value is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CycleLink {
    /// The name as first spelled.
    pub name: String,
    /// Where its value is set.
    pub source: Source,
}

/// `A -> B -> A (A at f, line 1; B at f, line 2)`.
pub(crate) fn describe(chain: &[CycleLink]) -> String {
    let mut s: Vec<&str> = chain.iter().map(|l| l.name.as_str()).collect();
    if let Some(first) = chain.first() {
        s.push(&first.name);
    }
    let at: Vec<String> = chain.iter().map(|l| format!("{} at {}", l.name, l.source)).collect();
    format!("{} ({})", s.join(" -> "), at.join("; "))
}

/// The names `text` refers to with `$(NAME)` or `$(NAME:default)`,
/// defaults and nested references included, in order.
fn references(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(d) = memchr::memmem::find(&b[from..], b"$(").map(|i| from + i) {
        let s = d + 2;
        let mut e = s;
        while e < b.len() && is_id_char(b[e]) {
            e += 1;
        }
        let kept = d > 0 && b[d - 1] == b'$';
        if e > s && matches!(b.get(e), Some(b')' | b':')) && !kept && !text[s..e].eq_ignore_ascii_case("DOLLAR") {
            out.push(&text[s..e]);
        }
        from = s;
    }
    out
}

/// A cycle among the values `text` leads to (`name`'s own value first,
/// when it is a value's text), if there is one. `acyclic` holds the names
/// (lowercase) known to lead into none, from earlier searches, and gains
/// those this one clears.
pub(crate) fn find(
    config: &Config,
    name: Option<&str>,
    text: &str,
    acyclic: &mut FxHashSet<String>,
) -> Option<Vec<CycleLink>> {
    // Depth first, without recursion: 1 = on the path, 2 = done.
    let mut state: FxHashMap<String, u8> = FxHashMap::default();
    let mut roots: Vec<&str> = name.into_iter().collect();
    roots.extend(references(text));
    for root in roots {
        let mut path: Vec<(String, Vec<&str>, usize)> = Vec::new();
        let key = root.to_ascii_lowercase();
        if state.contains_key(&key) || acyclic.contains(&key) {
            continue;
        }
        state.insert(key.clone(), 1);
        path.push((key, references(config.raw(root).unwrap_or_default()), 0));
        while let Some((_, refs, next)) = path.last_mut() {
            let Some(&r) = refs.get(*next) else {
                if let Some((k, _, _)) = path.pop() {
                    state.insert(k.clone(), 2);
                    acyclic.insert(k);
                }
                continue;
            };
            *next += 1;
            let rk = r.to_ascii_lowercase();
            if acyclic.contains(&rk) {
                continue;
            }
            match state.get(&rk) {
                Some(1) => {
                    let start = path.iter().position(|(k, _, _)| *k == rk).unwrap_or(0);
                    let chain = path[start..].iter().map(|(k, _, _)| link(config, k)).collect();
                    return Some(chain);
                }
                Some(_) => {}
                None => {
                    state.insert(rk.clone(), 1);
                    let refs = references(config.raw(r).unwrap_or_default());
                    path.push((rk, refs, 0));
                }
            }
        }
    }
    None
}

fn link(config: &Config, key: &str) -> CycleLink {
    match config.lookup_raw(key) {
        Some((name, source)) => CycleLink { name, source },
        None => CycleLink { name: key.to_ascii_uppercase(), source: Source::Default },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_include_defaults_and_nesting() {
        assert_eq!(references("$(A) $(B:$(C)) $($(D)) $$(E) $(DOLLAR) $(F"), ["A", "B", "C", "D"]);
    }
}
