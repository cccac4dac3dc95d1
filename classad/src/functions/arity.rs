//! How many arguments each built-in takes, read from the signatures of the
//! function reference (`reference.md`), the one place they are written.
//!
//! A signature's names outside brackets are required, those inside are
//! optional (`substr(s, offset[, length])` takes 2 or 3), and `...` means
//! any number more (`strcat([a, ...])`). A function with several rows or
//! signatures (`join`) takes what any of them allows.
//! `tests/arity.rs` checks the table against the
//! implementations: a call with a count outside it is ERROR.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The argument counts a function accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arity {
    /// The fewest arguments.
    pub min: usize,
    /// The most, or `None` for any number.
    pub max: Option<usize>,
}

impl Arity {
    /// Whether `count` arguments are accepted.
    pub fn accepts(self, count: usize) -> bool {
        count >= self.min && self.max.is_none_or(|max| count <= max)
    }

    fn union(self, other: Arity) -> Arity {
        Arity {
            min: self.min.min(other.min),
            max: match (self.max, other.max) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            },
        }
    }
}

impl std::fmt::Display for Arity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.max {
            Some(max) if max == self.min => write!(f, "{max}"),
            Some(max) => write!(f, "{} to {max}", self.min),
            None => write!(f, "{} or more", self.min),
        }
    }
}

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
    static TABLE: OnceLock<HashMap<String, Arity>> = OnceLock::new();
    TABLE.get_or_init(|| parse_reference(include_str!("reference.md"))).get(&name.to_ascii_lowercase()).copied()
}

/// Every signature in the first cell of the reference's table rows.
fn parse_reference(text: &str) -> HashMap<String, Arity> {
    let mut table: HashMap<String, Arity> = HashMap::new();
    for line in text.lines() {
        let Some(cell) = line.strip_prefix("| `").and_then(|rest| rest.split(" | ").next()) else {
            continue;
        };
        for signature in format!("`{cell}").split('`').skip(1).step_by(2) {
            if let Some((name, arity)) = parse_signature(signature) {
                let entry = table.entry(name.to_ascii_lowercase()).or_insert(arity);
                *entry = entry.union(arity);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures() {
        let parse = |s| parse_signature(s).map(|(_, a)| (a.min, a.max));
        assert_eq!(parse("time()"), Some((0, Some(0))));
        assert_eq!(parse("formatTime([t][, format])"), Some((0, Some(2))));
        assert_eq!(parse("userMap(map, input[, preferred[, default]])"), Some((2, Some(4))));
        assert_eq!(parse("join(sep, a, ...)"), Some((2, None)));
        assert_eq!(parse("random([max])"), Some((0, Some(1))));
    }

    #[test]
    fn every_builtin_has_an_arity() {
        for name in super::super::builtin_names() {
            assert!(arity(name).is_some(), "{name}");
        }
    }
}
