//! How many arguments each built-in takes, as the catalog
//! ([`builtins`](crate::builtins)) declares it.
//!
//! The function reference (`reference.md`) writes the same in its
//! signatures: a name outside brackets is required, one inside is optional
//! (`substr(s, offset[, length])` takes 2 or 3), and `...` means any number
//! more (`strcat([a, ...])`); a function with several rows or signatures
//! (`join`) takes what any of them allows. A test here keeps the two in
//! step, and `tests/arity.rs` checks the catalog against the
//! implementations: a call with a count outside it is ERROR.

use crate::builtins::{Arity, Builtin};

/// The argument counts the built-in `name` (any case) accepts; `None` for
/// a name that is not a built-in.
///
/// ```
/// use classad::functions::{arity, Arity};
/// assert_eq!(arity("substr"), Some(Arity { min: 2, max: Some(3) }));
/// assert_eq!(arity("STRCAT"), Some(Arity { min: 0, max: None }));
/// assert!(arity("time").is_some_and(|a| a.accepts(0) && !a.accepts(1)));
/// assert_eq!(arity("noSuchFunction"), None);
/// ```
pub fn arity(name: &str) -> Option<Arity> {
    Builtin::find(name).map(|builtin| builtin.arity)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// The smallest arity that allows what `a` and `b` allow.
    fn union(a: Arity, b: Arity) -> Arity {
        Arity {
            min: a.min.min(b.min),
            max: match (a.max, b.max) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            },
        }
    }

    /// Every signature in the first cell of the reference's table rows, by
    /// lower-cased name.
    fn parse_reference(text: &str) -> HashMap<String, (&str, Arity)> {
        let mut table: HashMap<String, (&str, Arity)> = HashMap::new();
        for line in text.lines() {
            let Some(cell) = line.strip_prefix("| `").and_then(|rest| rest.split(" | ").next()) else {
                continue;
            };
            for signature in cell.split('`').step_by(2) {
                if let Some((name, arity)) = parse_signature(signature) {
                    let entry = table.entry(name.to_ascii_lowercase()).or_insert((name, arity));
                    entry.1 = union(entry.1, arity);
                }
            }
        }
        table
    }

    /// `name(args)` as a name and its arity.
    fn parse_signature(signature: &str) -> Option<(&str, Arity)> {
        let (name, rest) = signature.split_once('(')?;
        let args = rest.strip_suffix(')')?;
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return None;
        }
        let (mut depth, mut required, mut optional, mut variadic) = (0usize, 0usize, 0usize, false);
        let mut in_word = false;
        for c in args.chars() {
            match c {
                '[' => depth += 1,
                ']' => depth = depth.saturating_sub(1),
                '.' => variadic = true,
                _ => {}
            }
            let word = c.is_ascii_alphanumeric() || c == '_';
            if word && !in_word {
                if depth == 0 {
                    required += 1;
                } else {
                    optional += 1;
                }
            }
            in_word = word;
        }
        Some((name, Arity { min: required, max: (!variadic).then_some(required + optional) }))
    }

    #[test]
    fn signatures() {
        let parse = |s| parse_signature(s).map(|(_, a)| (a.min, a.max));
        assert_eq!(parse("time()"), Some((0, Some(0))));
        assert_eq!(parse("formatTime([t][, format])"), Some((0, Some(2))));
        assert_eq!(parse("userMap(map, input[, preferred[, default]])"), Some((2, Some(4))));
        assert_eq!(parse("join(sep, a, ...)"), Some((2, None)));
        assert_eq!(parse("random([max])"), Some((0, Some(1))));
    }

    /// The reference documents every built-in of the catalog and nothing
    /// else, each with the arity its signatures imply and the catalog's
    /// spelling.
    #[test]
    fn the_reference_is_in_step_with_the_catalog() {
        let reference = parse_reference(include_str!("reference.md"));
        for builtin in Builtin::all() {
            let documented = reference.get(&builtin.name.to_ascii_lowercase());
            assert_eq!(documented, Some(&(builtin.name, builtin.arity)), "{}", builtin.name);
        }
        let extra: Vec<&str> =
            reference.values().map(|(name, _)| *name).filter(|name| Builtin::find(name).is_none()).collect();
        assert!(extra.is_empty(), "documented but not in the catalog: {extra:?}");
    }
}
