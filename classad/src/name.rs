//! Interned attribute and function names.
//!
//! ClassAd names are case-insensitive and case-preserving: `Memory`, `memory`
//! and `MEMORY` name the same attribute, and an ad prints the spelling it was
//! given. A [`Name`] is two integers: a *symbol*, shared by every spelling
//! that folds to the same lower-case text, and the id of its spelling in a
//! process-wide table. Equality and hashing use only the symbol, so an
//! attribute lookup compares integers and never touches text.
//!
//! The names with a meaning of their own in scoping (`self`, `parent`,
//! `root`, `toplevel`, `MY`, `TARGET`, `other`, `ad`, `CurrentTime`) have
//! the fixed symbols of [`reserved`], so recognising them is one comparison.
//!
//! Interned names live for the rest of the process. Real pools use a few
//! thousand distinct names, but input could bring endless new ones, so the
//! table has a process-wide cap, [`NameLimits`]: the parsers and readers
//! intern through [`Name::try_new`] and reject input that would pass it
//! with a parse error, and lookups by text ([`Name::find`]) never intern.
//! [`Name::new`], for the names a program spells itself, is not capped.

use std::cell::Cell;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use parking_lot::RwLock;
use rustc_hash::FxHashMap;

use crate::builtins::{BuiltinId, CATALOG};

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
pub struct Name {
    /// The same for every spelling that folds to the same text.
    symbol: u32,
    /// Where the spelling is in [`SPELLINGS`].
    spelling: u32,
}

/// The symbols of the names with a meaning of their own in scoping; they
/// are interned first, in this order.
pub(crate) mod reserved {
    pub(crate) const SELF: u32 = 0;
    pub(crate) const PARENT: u32 = 1;
    pub(crate) const ROOT: u32 = 2;
    pub(crate) const TOPLEVEL: u32 = 3;
    pub(crate) const MY: u32 = 4;
    pub(crate) const TARGET: u32 = 5;
    pub(crate) const OTHER: u32 = 6;
    pub(crate) const AD: u32 = 7;
    pub(crate) const CURRENT_TIME: u32 = 8;
    /// Every symbol below this is one of the above.
    pub(crate) const COUNT: u32 = 9;
    pub(super) const SPELLINGS: [&str; COUNT as usize] =
        ["self", "parent", "root", "toplevel", "my", "target", "other", "ad", "CurrentTime"];
}

/// The process-wide cap on interned names: how many distinct spellings,
/// and how many bytes of text, the table may hold. Reaching it makes
/// [`Name::try_new`] fail, and with it the parse of any input that brings
/// a new name; names interned already keep working.
///
/// The defaults, a million spellings and 64 MiB, are hundreds of times what
/// a real pool uses; a long-running reader of untrusted ads can lower them.
///
/// ```
/// use classad::NameLimits;
/// let limits = NameLimits::current();
/// assert_eq!(limits, NameLimits::default());
/// assert_eq!(limits.max_names, 1_000_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameLimits {
    /// Most distinct spellings (`Memory` and `memory` are two).
    pub max_names: usize,
    /// Most bytes of spelling text, all spellings together.
    pub max_bytes: usize,
}

const DEFAULT_MAX_NAMES: usize = 1_000_000;
const DEFAULT_MAX_BYTES: usize = 64 << 20;

impl Default for NameLimits {
    fn default() -> NameLimits {
        NameLimits { max_names: DEFAULT_MAX_NAMES, max_bytes: DEFAULT_MAX_BYTES }
    }
}

static MAX_NAMES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_NAMES);
static MAX_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_BYTES);

impl NameLimits {
    /// The limits in force.
    pub fn current() -> NameLimits {
        NameLimits { max_names: MAX_NAMES.load(Ordering::Relaxed), max_bytes: MAX_BYTES.load(Ordering::Relaxed) }
    }

    /// Puts these limits in force for the whole process, from the next name
    /// interned on. Lowering them below what is interned already stops new
    /// names and nothing else.
    pub fn install(self) {
        MAX_NAMES.store(self.max_names, Ordering::Relaxed);
        MAX_BYTES.store(self.max_bytes, Ordering::Relaxed);
    }
}

/// [`Name::try_new`] was given a new spelling and the table of names is at
/// its [`NameLimits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "too many distinct names: the process holds its limit of {} names or {} bytes of names (classad::NameLimits)",
    limits.max_names,
    limits.max_bytes
)]
pub struct TooManyNames {
    /// The limits that were reached.
    pub limits: NameLimits,
}

struct Interner {
    /// Exact spelling → name.
    by_spelling: FxHashMap<&'static str, Name>,
    /// ASCII-lower-cased text → the name of its first spelling.
    by_folded: FxHashMap<&'static str, Name>,
    /// Bytes of spelling text held.
    bytes: usize,
}

static INTERNER: RwLock<Option<Interner>> = RwLock::new(None);

/// The built-in each symbol names, by symbol (up to the last built-in's),
/// set with the interner, which interns their names first.
static BUILTINS_BY_SYMBOL: OnceLock<Box<[Option<BuiltinId>]>> = OnceLock::new();

/// Spellings by id, readable without a lock. Chunk `k` holds the ids from
/// `CHUNK * (2^k - 1)` on, `CHUNK << k` of them; entries are written once,
/// under the interner's lock, before the name is handed out.
static SPELLINGS: [OnceLock<Box<[OnceLock<&'static str>]>>; 32] = [const { OnceLock::new() }; 32];
const CHUNK: u32 = 256;

/// The chunk and offset of spelling `id`.
fn spelling_slot(id: u32) -> (usize, usize) {
    let chunk = (id / CHUNK + 1).ilog2();
    let first = CHUNK * ((1 << chunk) - 1);
    (chunk as usize, (id - first) as usize)
}

impl Interner {
    fn new() -> Interner {
        let mut interner = Interner { by_spelling: FxHashMap::default(), by_folded: FxHashMap::default(), bytes: 0 };
        for spelling in reserved::SPELLINGS {
            interner.add(spelling);
        }
        // The built-in functions' names are always there, whatever the
        // limits (a call interns its name when it is parsed), each symbol
        // with the built-in it names.
        let mut by_symbol: Vec<Option<BuiltinId>> = Vec::new();
        for builtin in &CATALOG {
            let name = match interner.by_spelling.get(builtin.name) {
                Some(&name) => name,
                None => interner.add(builtin.name),
            };
            let symbol = name.symbol as usize;
            if by_symbol.len() <= symbol {
                by_symbol.resize(symbol + 1, None);
            }
            by_symbol[symbol] = Some(builtin.id);
        }
        let _ = BUILTINS_BY_SYMBOL.set(by_symbol.into_boxed_slice());
        interner
    }

    /// Interns a spelling that is not interned yet.
    fn add(&mut self, text: &str) -> Name {
        self.bytes += text.len();
        let folded = text.to_ascii_lowercase();
        let id = self.by_spelling.len() as u32;
        let symbol = match self.by_folded.get(folded.as_str()) {
            Some(&first) => first.symbol,
            None => {
                let symbol = self.by_folded.len() as u32;
                let folded: &'static str = Box::leak(folded.into_boxed_str());
                self.by_folded.insert(folded, Name { symbol, spelling: id });
                symbol
            }
        };
        let spelling: &'static str = Box::leak(text.to_owned().into_boxed_str());
        let (chunk, offset) = spelling_slot(id);
        let slots = SPELLINGS[chunk]
            .get_or_init(|| (0..CHUNK << chunk).map(|_| OnceLock::new()).collect::<Vec<_>>().into_boxed_slice());
        let _ = slots[offset].set(spelling);
        let name = Name { symbol, spelling: id };
        self.by_spelling.insert(spelling, name);
        name
    }
}

/// A two-way set-associative cache of names a thread has interned, so that
/// interning a name seen before takes neither the interner's lock nor a
/// hash-map lookup: one hash of a few words and one or two comparisons.
/// It holds 4,096 names (96 KB): real pools use one to two thousand.
///
/// Each thread has one ([`Recent::take`]); a parser takes it for a whole
/// parse, so that it pays for the thread-local access once.
pub(crate) struct Recent {
    slots: Box<[Option<(&'static str, Name)>]>,
}

thread_local! {
    static RECENT: Cell<Option<Recent>> = const { Cell::new(None) };
}

/// Slots in each thread's cache (a power of two), in sets of two.
const RECENT_SLOTS: usize = 4096;

impl Recent {
    /// Takes this thread's cache (a new one if it has none, or if it is
    /// taken already); give it back with [`Recent::give_back`].
    pub(crate) fn take() -> Recent {
        RECENT.with(Cell::take).unwrap_or_else(|| Recent { slots: vec![None; RECENT_SLOTS].into() })
    }

    /// A new cache, owned by its caller rather than the thread's.
    pub(crate) fn new() -> Recent {
        Recent { slots: vec![None; RECENT_SLOTS].into() }
    }

    /// A cache with no slots (and no allocation), to stand in for one that
    /// has been given back.
    pub(crate) fn empty() -> Recent {
        Recent { slots: Box::new([]) }
    }

    /// Makes `cache` this thread's cache again (unless it is an empty
    /// stand-in).
    pub(crate) fn give_back(cache: Recent) {
        if !cache.slots.is_empty() {
            RECENT.with(|cell| cell.set(Some(cache)));
        }
    }

    /// Interns `text` (not capped: for names the program spells).
    #[inline]
    pub(crate) fn name(&mut self, text: &str) -> Name {
        let Ok(name) = self.intern(text, Always);
        name
    }

    /// Interns `text` as [`Name::try_new`] does (for names read from
    /// input).
    #[inline]
    pub(crate) fn try_name(&mut self, text: &str) -> Result<Name, TooManyNames> {
        self.intern(text, WithinLimits).or_else(|full| self.find(text).ok_or(full))
    }

    /// A name equal to `text`, if one is interned already (spelled as
    /// `text` when that spelling is interned).
    #[inline]
    pub(crate) fn find(&mut self, text: &str) -> Option<Name> {
        match self.intern(text, Never) {
            Ok(name) => Some(name),
            Err(other_spelling) => other_spelling,
        }
    }

    /// The name of `text` from the cache, else from the process-wide table
    /// (adding it there as `admit` says), then cached.
    #[inline]
    fn intern<A: Admission>(&mut self, text: &str, admit: A) -> Result<Name, A::Refusal> {
        let bytes = text.as_bytes();
        let (first, last) = end_words(bytes);
        // The set's two slots: the more recently used one first.
        let set = recent_slot(bytes.len(), first, last) & !1;
        for way in [set, set + 1] {
            if let Some(Some((spelling, name))) = self.slots.get(way) {
                if spelling.len() == bytes.len() && same_bytes(spelling.as_bytes(), bytes) {
                    let name = *name;
                    if way != set {
                        self.slots.swap(set, way);
                    }
                    return Ok(name);
                }
            }
        }
        let name = Name::new_shared(text, admit)?;
        if set + 1 < self.slots.len() {
            self.slots.swap(set, set + 1);
            self.slots[set] = Some((name.as_str(), name));
        }
        Ok(name)
    }
}

/// Whether a spelling not interned yet may be added to the process-wide
/// table, and what is returned when it may not.
trait Admission: Copy {
    /// False when [`admit`](Admission::admit) never allows: then the
    /// table is only read.
    const ADDS: bool = true;
    type Refusal;
    fn admit(self, interner: &Interner, text: &str) -> Result<(), Self::Refusal>;
}

/// Every spelling is added ([`Name::new`]).
#[derive(Clone, Copy)]
struct Always;

/// Spellings are added while the [`NameLimits`] allow ([`Name::try_new`]).
#[derive(Clone, Copy)]
struct WithinLimits;

/// No spelling is added ([`Name::find`]).
#[derive(Clone, Copy)]
struct Never;

impl Admission for Always {
    type Refusal = std::convert::Infallible;
    fn admit(self, _: &Interner, _: &str) -> Result<(), Self::Refusal> {
        Ok(())
    }
}

impl Admission for WithinLimits {
    type Refusal = TooManyNames;
    fn admit(self, interner: &Interner, text: &str) -> Result<(), TooManyNames> {
        let limits = NameLimits::current();
        let full = interner.by_spelling.len() >= limits.max_names
            || interner.bytes.saturating_add(text.len()) > limits.max_bytes;
        if full {
            Err(TooManyNames { limits })
        } else {
            Ok(())
        }
    }
}

/// The refusal of [`Never`] carries a name of the same symbol spelled
/// differently, if there is one.
impl Admission for Never {
    const ADDS: bool = false;
    type Refusal = Option<Name>;
    fn admit(self, interner: &Interner, text: &str) -> Result<(), Option<Name>> {
        Err(interner.by_folded.get(text.to_ascii_lowercase().as_str()).copied())
    }
}

/// The first and the last eight bytes of `bytes` as words (fewer, zero
/// extended, when it is shorter), for hashing.
#[inline]
fn end_words(bytes: &[u8]) -> (u64, u64) {
    let n = bytes.len();
    if n >= 8 {
        (word(bytes, 0), word(bytes, n - 8))
    } else if n >= 4 {
        (u64::from(half_word(bytes, 0)), u64::from(half_word(bytes, n - 4)))
    } else {
        let mut first = 0u64;
        for &b in bytes {
            first = first << 8 | u64::from(b);
        }
        (first, 0)
    }
}

#[inline]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut buf = [0u8; 8];
    buf.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(buf)
}

#[inline]
fn half_word(bytes: &[u8], at: usize) -> u32 {
    let mut buf = [0u8; 4];
    buf.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(buf)
}

/// `a == b` for two slices of the same length, a word at a time (names
/// are short; this avoids a call to `memcmp`).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n < 8 {
        return end_words(a) == end_words(b);
    }
    let mut at = 0;
    while at + 8 < n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

/// The cache slot for a spelling of `len` bytes with these end words.
#[inline]
fn recent_slot(len: usize, first: u64, last: u64) -> usize {
    let h = (len as u64)
        .wrapping_add(first.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .rotate_left(29)
        .wrapping_add(last)
        .wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (h >> (64 - RECENT_SLOTS.trailing_zeros())) as usize
}

impl Name {
    /// A name that is no name: marks the empty slots of an ad's table.
    pub(crate) const NONE: Name = Name { symbol: u32::MAX, spelling: 0 };

    /// Interns `text` and returns its name. Not subject to the
    /// [`NameLimits`]: this is for the names a program spells itself; use
    /// [`Name::try_new`] for names that come from input.
    pub fn new(text: &str) -> Name {
        let mut cache = Recent::take();
        let name = cache.name(text);
        Recent::give_back(cache);
        name
    }

    /// Interns `text` if it is interned already or the process-wide
    /// [`NameLimits`] allow one more spelling. At the limits, a new
    /// spelling of a name interned in another case gives that name (equal,
    /// but printed as first spelled); only a new name is an error.
    ///
    /// ```
    /// use classad::Name;
    /// assert_eq!(Name::try_new("Memory")?, Name::new("MEMORY"));
    /// # Ok::<(), classad::TooManyNames>(())
    /// ```
    pub fn try_new(text: &str) -> Result<Name, TooManyNames> {
        let mut cache = Recent::take();
        let name = cache.try_name(text);
        Recent::give_back(cache);
        name
    }

    /// A name equal to `text` (ignoring case), or `None` when no such name
    /// has been interned, and so no ad has that attribute. Interns nothing:
    /// looking up text from input cannot grow the table. The name is
    /// spelled as `text` when that spelling is interned, else as another.
    ///
    /// ```
    /// use classad::Name;
    /// let memory = Name::new("Memory");
    /// assert_eq!(Name::find("Memory"), Some(memory));
    /// assert_eq!(Name::find("MEMORY"), Some(memory));
    /// assert_eq!(Name::find("MEMORY").map(|n| n.as_str()), Some("Memory"));
    /// assert_eq!(Name::find("NeverSpelledAnywhere"), None);
    /// ```
    pub fn find(text: &str) -> Option<Name> {
        let mut cache = Recent::take();
        let name = cache.find(text);
        Recent::give_back(cache);
        name
    }

    /// Interns `text` through the process-wide table, if it is there or
    /// `admit` lets it be added.
    fn new_shared<A: Admission>(text: &str, admit: A) -> Result<Name, A::Refusal> {
        if let Some(interner) = INTERNER.read().as_ref() {
            if let Some(&name) = interner.by_spelling.get(text) {
                return Ok(name);
            }
            if !A::ADDS {
                admit.admit(interner, text)?;
            }
        }
        let mut guard = INTERNER.write();
        let interner = guard.get_or_insert_with(Interner::new);
        match interner.by_spelling.get(text) {
            Some(&name) => Ok(name),
            None => {
                admit.admit(interner, text)?;
                Ok(interner.add(text))
            }
        }
    }

    /// The spelling this name was created with.
    pub fn as_str(self) -> &'static str {
        let (chunk, offset) = spelling_slot(self.spelling);
        SPELLINGS[chunk].get().and_then(|slots| slots.get(offset)?.get().copied()).unwrap_or("")
    }

    /// The id of this name's spelling: the same for names made from the
    /// same text, different for different texts.
    pub(crate) fn spelling_id(self) -> u32 {
        self.spelling
    }

    /// The symbol shared by all spellings of this name (stable for the life
    /// of the process, not across processes).
    pub fn symbol(self) -> u32 {
        self.symbol
    }

    /// True for the names with a meaning of their own in scoping (`self`,
    /// `parent`, `root`, `toplevel`, `MY`, `TARGET`, `other`, `ad`,
    /// `CurrentTime`).
    pub(crate) fn is_reserved(self) -> bool {
        self.symbol < reserved::COUNT
    }

    /// The built-in function of this name (in any case), if there is one.
    ///
    /// ```
    /// use classad::builtins::BuiltinId;
    /// use classad::Name;
    /// assert_eq!(Name::new("StrCat").builtin(), Some(BuiltinId::Strcat));
    /// assert_eq!(Name::new("Memory").builtin(), None);
    /// ```
    #[inline]
    pub fn builtin(self) -> Option<BuiltinId> {
        // Every name but NONE was interned, and the interner fills the
        // table when it starts.
        BUILTINS_BY_SYMBOL.get()?.get(self.symbol as usize).copied().flatten()
    }

    /// True when this name equals `text` ignoring ASCII case.
    pub fn is(self, text: &str) -> bool {
        self.as_str().eq_ignore_ascii_case(text)
    }

    /// True when the name must be written as a quoted name (`'...'`) in
    /// new ClassAd syntax: it is not a plain identifier, or it is a reserved
    /// word.
    pub fn needs_quotes(self) -> bool {
        needs_quotes(self.as_str())
    }
}

/// What a lookup in an ad takes as the attribute's name: a [`Name`], or
/// text, which is looked up with [`Name::find`] and so never interned (a
/// lookup of a name no ad has finds nothing without growing the table).
///
/// ```
/// use classad::{ClassAd, Name};
/// let mut ad = ClassAd::new();
/// ad.insert("Memory", 2048);
/// assert!(ad.contains("memory"));
/// assert!(ad.contains(Name::new("MEMORY")));
/// assert!(!ad.contains("SomeNameNoAdHas"));
/// assert_eq!(Name::find("SomeNameNoAdHas"), None);
/// ```
pub trait AttrKey {
    /// The name, or `None` when it is text no interned name equals.
    fn find_name(self) -> Option<Name>;
}

impl AttrKey for Name {
    #[inline]
    fn find_name(self) -> Option<Name> {
        Some(self)
    }
}

impl AttrKey for &str {
    #[inline]
    fn find_name(self) -> Option<Name> {
        Name::find(self)
    }
}

impl AttrKey for &String {
    #[inline]
    fn find_name(self) -> Option<Name> {
        Name::find(self)
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
        self.symbol == other.symbol
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u32(self.symbol);
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

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::new(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_know_their_builtin_in_any_case() {
        for builtin in &CATALOG {
            for spelling in [builtin.name.to_owned(), builtin.name.to_ascii_uppercase()] {
                assert_eq!(Name::new(&spelling).builtin(), Some(builtin.id), "{spelling}");
            }
        }
        // The reserved name CurrentTime is also the built-in currentTime.
        assert_eq!(Name::new("CurrentTime").symbol(), reserved::CURRENT_TIME);
        assert_eq!(Name::new("CurrentTime").builtin(), Some(BuiltinId::CurrentTime));
        assert_eq!(Name::NONE.builtin(), None);
        assert_eq!(Name::new("NotAFunction").builtin(), None);
    }

    #[test]
    fn spellings_share_a_symbol() {
        let a = Name::new("RequestMemory");
        let b = Name::new("requestmemory");
        let c = Name::new("RequestCpus");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.symbol(), b.symbol());
        assert_eq!(b.as_str(), "requestmemory");
        assert_eq!(a.spelling, Name::new("RequestMemory").spelling);
    }

    #[test]
    fn the_cache_tells_apart_names_that_share_their_ends() {
        // Same length, same first and last eight bytes: the same cache slot.
        let a = Name::new("abcdefgh_X_ijklmnop");
        let b = Name::new("abcdefgh_Y_ijklmnop");
        assert_ne!(a, b);
        assert_eq!(Name::new("abcdefgh_X_ijklmnop").as_str(), "abcdefgh_X_ijklmnop");
        assert_eq!(Name::new("abcdefgh_Y_ijklmnop").as_str(), "abcdefgh_Y_ijklmnop");
        // Every length up to two words, and spellings differing in one byte.
        let text = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        for len in 1..=text.len() {
            let upper = Name::new(&text[..len]);
            let lower = Name::new(&text[..len].to_ascii_lowercase());
            assert_eq!(upper, lower);
            assert_eq!(upper.as_str(), &text[..len]);
            assert_eq!(lower.as_str(), text[..len].to_ascii_lowercase());
            if len > 1 {
                assert_ne!(upper, Name::new(&text[..len - 1]));
            }
        }
    }

    #[test]
    fn reserved_names_have_fixed_symbols() {
        assert_eq!(Name::new("TARGET").symbol(), reserved::TARGET);
        assert_eq!(Name::new("Self").symbol(), reserved::SELF);
        assert_eq!(Name::new("currenttime").symbol(), reserved::CURRENT_TIME);
        assert!(Name::new("MY").is_reserved());
        assert!(!Name::new("Memory").is_reserved());
    }

    #[test]
    fn many_spellings() {
        let names: Vec<Name> = (0..3000).map(|i| Name::new(&format!("spelling_test_{i}"))).collect();
        for (i, name) in names.iter().enumerate() {
            assert_eq!(name.as_str(), format!("spelling_test_{i}"));
        }
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
