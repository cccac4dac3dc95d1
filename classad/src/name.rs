//! Interned attribute and function names.
//!
//! ClassAd names are case-insensitive and case-preserving: `Memory`, `memory`
//! and `MEMORY` name the same attribute, and an ad prints the spelling it was
//! given. A [`Name`] is a pointer to an entry of a process-wide interner that
//! holds the spelling and a *symbol*, a small integer shared by every spelling
//! that folds to the same lower-case text. Equality and hashing use only the
//! symbol, so an attribute lookup hashes one integer and never compares text.
//!
//! Interned names live for the rest of the process. Real pools use a few
//! thousand distinct names; a program that parses adversarial input with
//! unbounded numbers of distinct names should bound its input (see
//! [`interned_count`]).

use std::cell::RefCell;
use std::fmt;
use std::hash::{Hash, Hasher};

use parking_lot::RwLock;
use rustc_hash::FxHashMap;

/// An interned, case-insensitive, case-preserving name.
///
/// Two names are equal when they differ at most in ASCII case; a name prints
/// with the spelling it was created from.
///
/// ```
/// use classad::Name;
/// let a = Name::new("Memory");
/// let b = Name::new("MEMORY");
/// assert_eq!(a, b);
/// assert_eq!(a.as_str(), "Memory");
/// assert_eq!(b.as_str(), "MEMORY");
/// ```
#[derive(Clone, Copy)]
pub struct Name(&'static Entry);

struct Entry {
    /// The same for every spelling that folds to the same text.
    symbol: u32,
    spelling: &'static str,
}

#[derive(Default)]
struct Interner {
    /// Exact spelling → entry.
    by_spelling: FxHashMap<&'static str, &'static Entry>,
    /// ASCII-lower-cased text → symbol.
    by_folded: FxHashMap<&'static str, u32>,
}

static INTERNER: RwLock<Option<Interner>> = RwLock::new(None);

thread_local! {
    /// A direct-mapped cache of names this thread has interned, so that
    /// parsing does not take the interner's lock for every name.
    static RECENT: RefCell<Vec<Option<Name>>> = const { RefCell::new(Vec::new()) };
}

/// Slots in each thread's cache (a power of two).
const RECENT_SLOTS: usize = 1024;

impl Name {
    /// Interns `text` and returns its name.
    pub fn new(text: &str) -> Name {
        let slot = {
            let mut hasher = rustc_hash::FxHasher::default();
            hasher.write(text.as_bytes());
            (hasher.finish() >> (64 - RECENT_SLOTS.trailing_zeros())) as usize
        };
        RECENT.with(|recent| {
            let mut recent = recent.borrow_mut();
            if recent.is_empty() {
                recent.resize(RECENT_SLOTS, None);
            }
            match recent[slot] {
                Some(name) if name.as_str() == text => name,
                _ => {
                    let name = Name::new_shared(text);
                    recent[slot] = Some(name);
                    name
                }
            }
        })
    }

    /// Interns `text` through the process-wide table.
    fn new_shared(text: &str) -> Name {
        if let Some(interner) = INTERNER.read().as_ref() {
            if let Some(entry) = interner.by_spelling.get(text) {
                return Name(entry);
            }
        }
        Name::insert(text)
    }

    #[cold]
    fn insert(text: &str) -> Name {
        let mut guard = INTERNER.write();
        let interner = guard.get_or_insert_with(Interner::default);
        if let Some(entry) = interner.by_spelling.get(text) {
            return Name(entry);
        }
        let folded = text.to_ascii_lowercase();
        let next = interner.by_folded.len() as u32;
        let symbol = match interner.by_folded.get(folded.as_str()) {
            Some(&symbol) => symbol,
            None => {
                let folded: &'static str = Box::leak(folded.into_boxed_str());
                interner.by_folded.insert(folded, next);
                next
            }
        };
        let spelling: &'static str = Box::leak(text.to_owned().into_boxed_str());
        let entry: &'static Entry = Box::leak(Box::new(Entry { symbol, spelling }));
        interner.by_spelling.insert(spelling, entry);
        Name(entry)
    }

    /// The spelling this name was created with.
    pub fn as_str(self) -> &'static str {
        self.0.spelling
    }

    /// The symbol shared by all spellings of this name (stable for the life of
    /// the process, not across processes).
    pub fn symbol(self) -> u32 {
        self.0.symbol
    }

    /// True when this name equals `text` ignoring ASCII case.
    pub fn is(self, text: &str) -> bool {
        self.0.spelling.eq_ignore_ascii_case(text)
    }

    /// True when the name must be written as a quoted name (`'...'`) in
    /// new ClassAd syntax: it is not a plain identifier, or it is a reserved
    /// word.
    pub fn needs_quotes(self) -> bool {
        needs_quotes(self.0.spelling)
    }
}

/// Number of distinct spellings interned so far in this process.
pub fn interned_count() -> usize {
    INTERNER.read().as_ref().map_or(0, |interner| interner.by_spelling.len())
}

/// True when `text` is written quoted as a name.
pub(crate) fn needs_quotes(text: &str) -> bool {
    !is_identifier(text) || is_reserved(text)
}

/// True when the name must be quoted after a `.`: there libclassad writes
/// `parent` bare, and we quote only what would not read back.
pub(crate) fn needs_quotes_after_dot(text: &str) -> bool {
    !is_identifier(text) || is_keyword(text)
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Words that are quoted when written as names (libclassad quotes
/// `parent` too, though it reads back bare).
fn is_reserved(text: &str) -> bool {
    is_keyword(text) || text.eq_ignore_ascii_case("parent")
}

/// Words the lexer reads as keywords, never as names.
fn is_keyword(text: &str) -> bool {
    ["true", "false", "undefined", "error", "is", "isnt"].iter().any(|word| text.eq_ignore_ascii_case(word))
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.0.symbol == other.0.symbol
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u32(self.0.symbol);
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Orders by folded text, so sorting names is case-insensitive and stable
/// across runs.
impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        if self == other {
            return std::cmp::Ordering::Equal;
        }
        let a = self.as_str().bytes().map(|b| b.to_ascii_lowercase());
        let b = other.as_str().bytes().map(|b| b.to_ascii_lowercase());
        a.cmp(b)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Name({:?})", self.as_str())
    }
}

/// Writes the name as new ClassAd syntax: bare, or quoted when needed.
///
/// ```
/// use classad::Name;
/// assert_eq!(Name::new("Cpus").to_string(), "Cpus");
/// assert_eq!(Name::new("my attr").to_string(), "'my attr'");
/// assert_eq!(Name::new("true").to_string(), "'true'");
/// ```
impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.needs_quotes() {
            crate::print::write_quoted(f, self.as_str(), '\'')
        } else {
            f.write_str(self.as_str())
        }
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::new(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_share_a_symbol() {
        let a = Name::new("RequestMemory");
        let b = Name::new("requestmemory");
        let c = Name::new("RequestCpus");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.symbol(), b.symbol());
        assert_eq!(b.as_str(), "requestmemory");
        assert!(std::ptr::eq(a.0, Name::new("RequestMemory").0));
    }

    #[test]
    fn quoting() {
        for (text, quoted) in [
            ("a", false),
            ("_a1", false),
            ("1a", true),
            ("a b", true),
            ("", true),
            ("TRUE", true),
            ("parent", true),
            ("self", false),
            ("isnt", true),
        ] {
            assert_eq!(needs_quotes(text), quoted, "{text}");
        }
    }

    #[test]
    fn ordering_ignores_case() {
        let mut names = [Name::new("b"), Name::new("A"), Name::new("a2")];
        names.sort();
        let spelled: Vec<_> = names.iter().map(|n| n.as_str()).collect();
        assert_eq!(spelled, ["A", "a2", "b"]);
    }
}
