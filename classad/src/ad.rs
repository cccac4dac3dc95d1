//! The `ClassAd` type: named expressions with case-insensitive,
//! case-preserving names, kept in insertion order.

use std::sync::Arc;

use crate::expr::Expr;
use crate::name::{AttrKey, Name};

/// A ClassAd: a set of attributes, each a name bound to an expression.
///
/// Names are case-insensitive and keep the spelling they were first given;
/// attributes keep the order they were inserted in (replacing an attribute's
/// value keeps its place and spelling). An ad may be *chained* to a parent
/// ad whose attributes show through where this ad has none, as HTCondor
/// chains a job ad to its cluster ad.
///
/// ```
/// use classad::{ClassAd, Value};
/// let mut ad = ClassAd::new();
/// ad.insert("Memory", 2048);
/// ad.insert("Arch", "X86_64");
/// ad.insert_expr("Big", "memory > 1024").unwrap();
/// assert_eq!(ad.eval_attr("big"), Value::Bool(true));
/// assert_eq!(ad.to_string(), r#"[ Memory = 2048; Arch = "X86_64"; Big = memory > 1024 ]"#);
/// ```
#[derive(Clone, Default)]
pub struct ClassAd {
    /// The attributes, in an open-addressing table (linear probing) keyed
    /// by name symbol: a lookup compares integers and usually touches one
    /// cache line. A power of two long; empty for an empty ad.
    slots: Box<[Slot]>,
    /// Indices into `slots`, in insertion order.
    order: Vec<u32>,
    /// Bit `s` is set when the ad defines the reserved name with symbol `s`
    /// (`TARGET`, `self`, ...), so scoping can skip the table for them.
    reserved: u16,
    chained: Option<Arc<ClassAd>>,
}

#[derive(Clone)]
struct Slot {
    name: Name,
    expr: Expr,
}

impl Slot {
    /// An empty slot. Its expression is always this literal, which owns
    /// nothing ([`ClassAd::place`] relies on it).
    fn empty() -> Slot {
        Slot { name: Name::NONE, expr: Expr::literal(crate::expr::Literal::Undefined) }
    }

    fn is_empty(&self) -> bool {
        self.name.symbol() == Name::NONE.symbol()
    }
}

/// A table of `len` empty slots.
fn empty_slots(len: usize) -> Box<[Slot]> {
    std::iter::repeat_with(Slot::empty).take(len).collect()
}

/// A table with room for `len` attributes at a load of at most 3/4.
fn capacity_for(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        (len + len / 3 + 1).next_power_of_two().max(8)
    }
}

/// Where probing for `symbol` starts in a table of `len` (a power of two).
fn home(symbol: u32, len: usize) -> usize {
    // Fibonacci hashing: symbols are small consecutive integers.
    (symbol.wrapping_mul(0x9E37_79B9) >> (32 - len.trailing_zeros())) as usize
}

impl ClassAd {
    /// An empty ad.
    pub fn new() -> ClassAd {
        ClassAd::default()
    }

    /// An empty ad with room for `capacity` attributes.
    pub fn with_capacity(capacity: usize) -> ClassAd {
        let slots = empty_slots(capacity_for(capacity));
        ClassAd { slots, order: Vec::with_capacity(capacity), reserved: 0, chained: None }
    }

    /// An ad with these attributes, in this order; a repeated name keeps its
    /// first place and spelling and takes the last value.
    pub fn from_attributes(attrs: impl IntoIterator<Item = (Name, Expr), IntoIter: ExactSizeIterator>) -> ClassAd {
        // The table is sized for every attribute up front.
        let attrs = attrs.into_iter();
        let mut ad = ClassAd::with_capacity(attrs.len());
        for (name, expr) in attrs {
            ad.place(name, expr);
        }
        ad
    }

    /// An ad of the attributes `attrs[start..]`, moved out of `attrs`
    /// (which keeps the first `start`); as [`from_attributes`](Self::from_attributes)
    /// otherwise. The parser's way: each value moves straight from the
    /// vector into the table.
    pub(crate) fn take_attributes(attrs: &mut Vec<(Name, Expr)>, start: usize) -> ClassAd {
        let taken = &mut attrs[start..];
        let mut ad = ClassAd::with_capacity(taken.len());
        for (name, expr) in taken {
            ad.place(*name, std::mem::replace(expr, Expr::literal(crate::expr::Literal::Undefined)));
        }
        attrs.truncate(start);
        ad
    }

    /// The slot holding `name`, if any.
    #[inline]
    fn find(&self, name: Name) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = home(name.symbol(), self.slots.len());
        loop {
            let slot = &self.slots[i];
            if slot.name == name {
                return Some(i);
            }
            if slot.is_empty() {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Binds `name` to `value`, replacing (in place) any attribute of the
    /// same name. Returns the previous expression.
    pub fn insert(&mut self, name: impl Into<Name>, value: impl Into<Expr>) -> Option<Expr> {
        self.insert_name(name.into(), value.into())
    }

    fn insert_name(&mut self, name: Name, value: Expr) -> Option<Expr> {
        if capacity_for(self.order.len() + 1) > self.slots.len() {
            self.rebuild(capacity_for(self.order.len() + 1));
        }
        self.place(name, value)
    }

    /// [`insert_name`](Self::insert_name) in a table known to have room.
    #[inline(always)]
    fn place(&mut self, name: Name, value: Expr) -> Option<Expr> {
        let mask = self.slots.len() - 1;
        let mut i = home(name.symbol(), self.slots.len());
        loop {
            let slot = &mut self.slots[i];
            if slot.name == name {
                return Some(std::mem::replace(&mut slot.expr, value));
            }
            if slot.is_empty() {
                slot.name = name;
                // An empty slot holds a literal, which owns nothing: it is
                // overwritten without running its destructor, whose call
                // path made the compiler copy the value through the stack
                // (a store-forwarding stall per attribute).
                std::mem::forget(std::mem::replace(&mut slot.expr, value));
                // Positions fit: an ad cannot hold 2^32 attributes in memory.
                self.order.push(i as u32);
                if name.is_reserved() {
                    self.reserved |= 1 << name.symbol();
                }
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// The empty slot where `name` (absent) goes.
    fn free_slot(&self, name: Name) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = home(name.symbol(), self.slots.len());
        while !self.slots[i].is_empty() {
            i = (i + 1) & mask;
        }
        i
    }

    /// Moves the attributes into a table of `capacity` slots, in order.
    fn rebuild(&mut self, capacity: usize) {
        let mut old = std::mem::replace(&mut self.slots, empty_slots(capacity));
        let order = std::mem::take(&mut self.order);
        self.order.reserve(order.len());
        for i in order {
            let slot = std::mem::replace(&mut old[i as usize], Slot::empty());
            let j = self.free_slot(slot.name);
            self.slots[j] = slot;
            self.order.push(j as u32);
        }
    }

    /// The expression bound to `name` in this ad (not its chained parent).
    pub fn get(&self, name: impl AttrKey) -> Option<&Expr> {
        self.get_name(name.find_name()?)
    }

    #[inline]
    fn get_name(&self, name: Name) -> Option<&Expr> {
        self.find(name).map(|i| &self.slots[i].expr)
    }

    /// The expression bound to `name` here or, failing that, in the chain of
    /// parent ads.
    pub fn lookup(&self, name: impl AttrKey) -> Option<&Expr> {
        self.lookup_name(name.find_name()?)
    }

    #[inline]
    pub(crate) fn lookup_name(&self, name: Name) -> Option<&Expr> {
        let mut ad = self;
        loop {
            if let Some(expr) = ad.get_name(name) {
                return Some(expr);
            }
            ad = ad.chained.as_deref()?;
        }
    }

    /// False when neither this ad nor its chained parents can define `name`:
    /// exact for the reserved names (`TARGET`, `self`, ...), which scoping
    /// asks about most, and true for every other name.
    #[inline]
    pub(crate) fn may_define(&self, name: Name) -> bool {
        if !name.is_reserved() {
            return true;
        }
        let mut ad = self;
        loop {
            if ad.reserved & (1 << name.symbol()) != 0 {
                return true;
            }
            match ad.chained.as_deref() {
                Some(parent) => ad = parent,
                None => return false,
            }
        }
    }

    /// Asks the processor to start loading the part of this ad's table where
    /// `name` would be, ahead of a lookup (no effect where unsupported): a
    /// writer of many ads looks a few ads ahead.
    ///
    /// ```
    /// let ad: classad::ClassAd = "[ Name = \"slot1@h\"; State = \"Unclaimed\" ]".parse()?;
    /// let state = classad::Name::new("State");
    /// ad.prefetch(state);
    /// assert_eq!(ad.lookup_string(state).as_deref(), Some("Unclaimed"));
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    #[inline]
    pub fn prefetch(&self, name: Name) {
        if self.slots.is_empty() {
            return;
        }
        let slot: *const Slot = &self.slots[home(name.symbol(), self.slots.len())];
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        // SAFETY: `_mm_prefetch` only hints the cache and never faults; the
        // pointer is to a live element of our own slice, and SSE is part of
        // the x86_64 baseline. Measured in docs/benchmarks.md (prepared
        // matching over 20,000 machines).
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(slot.cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// The name as spelled in this ad, and its expression.
    pub fn get_key_value(&self, name: impl AttrKey) -> Option<(Name, &Expr)> {
        self.find(name.find_name()?).map(|i| {
            let slot = &self.slots[i];
            (slot.name, &slot.expr)
        })
    }

    /// True when this ad itself defines `name`.
    pub fn contains(&self, name: impl AttrKey) -> bool {
        name.find_name().and_then(|name| self.find(name)).is_some()
    }

    /// Removes `name`, keeping the order of the other attributes.
    pub fn remove(&mut self, name: impl AttrKey) -> Option<Expr> {
        let name = name.find_name()?;
        let i = self.find(name)?;
        let removed = std::mem::replace(&mut self.slots[i], Slot::empty());
        self.order.retain(|&j| j as usize != i);
        if name.is_reserved() {
            self.reserved &= !(1 << name.symbol());
        }
        // Linear probing cannot leave a hole: re-place everything.
        self.rebuild(capacity_for(self.order.len()));
        Some(removed.expr)
    }

    /// Number of attributes in this ad (not counting a chained parent).
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when the ad has no attributes of its own.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Removes every attribute (the chain is kept).
    pub fn clear(&mut self) {
        self.slots = Box::default();
        self.order.clear();
        self.reserved = 0;
    }

    /// The attributes in insertion order.
    pub fn iter(&self) -> Iter<'_> {
        Iter { slots: &self.slots, order: self.order.iter() }
    }

    /// The attribute names in insertion order.
    pub fn names(&self) -> impl Iterator<Item = Name> + '_ {
        self.iter().map(|(name, _)| name)
    }

    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        self.slots.iter_mut().map(|slot| &mut slot.expr)
    }

    /// Chains this ad to `parent`: names missing here are looked up there.
    pub fn chain_to(&mut self, parent: Arc<ClassAd>) {
        self.chained = Some(parent);
    }

    /// Removes the chain and returns the parent it pointed to.
    pub fn unchain(&mut self) -> Option<Arc<ClassAd>> {
        self.chained.take()
    }

    /// The chained parent ad, if any.
    pub fn chained_parent(&self) -> Option<&Arc<ClassAd>> {
        self.chained.as_ref()
    }

    /// Copies every attribute of `other` into this ad (replacing same-named ones).
    pub fn update(&mut self, other: &ClassAd) {
        for (name, expr) in other.iter() {
            self.insert(name, expr.clone());
        }
    }

    /// True when both ads have the same attributes (names compared without
    /// case, expressions structurally), in any order.
    pub fn same_as(&self, other: &ClassAd) -> bool {
        self.len() == other.len() && self.iter().all(|(name, expr)| other.get(name).is_some_and(|e| e.same_as(expr)))
    }
}

impl PartialEq for ClassAd {
    fn eq(&self, other: &ClassAd) -> bool {
        self.same_as(other)
    }
}

impl std::fmt::Debug for ClassAd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClassAd({self})")
    }
}

/// Iterator over an ad's `(name, expression)` pairs in insertion order.
pub struct Iter<'a> {
    slots: &'a [Slot],
    order: std::slice::Iter<'a, u32>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (Name, &'a Expr);

    fn next(&mut self) -> Option<(Name, &'a Expr)> {
        let slot = &self.slots[*self.order.next()? as usize];
        Some((slot.name, &slot.expr))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.order.size_hint()
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a ClassAd {
    type Item = (Name, &'a Expr);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<N: Into<Name>, E: Into<Expr>> FromIterator<(N, E)> for ClassAd {
    fn from_iter<I: IntoIterator<Item = (N, E)>>(iter: I) -> ClassAd {
        let mut ad = ClassAd::new();
        for (name, expr) in iter {
            ad.insert(name, expr);
        }
        ad
    }
}

impl<N: Into<Name>, E: Into<Expr>> Extend<(N, E)> for ClassAd {
    fn extend<I: IntoIterator<Item = (N, E)>>(&mut self, iter: I) {
        for (name, expr) in iter {
            self.insert(name, expr);
        }
    }
}

/// Asks the processor to start loading the memory `value` is in (its
/// first cache line), ahead of a read; no effect where unsupported. For
/// walks over many ads behind pointers (a collector's records), where each
/// step would otherwise wait for memory.
///
/// ```
/// let ads: Vec<std::sync::Arc<classad::ClassAd>> = (0..8).map(|i| std::sync::Arc::new(classad::ClassAd::from_iter([("Cpus", i)]))).collect();
/// let mut cpus = 0;
/// for (k, ad) in ads.iter().enumerate() {
///     if let Some(ahead) = ads.get(k + 4) {
///         classad::prefetch(&**ahead);
///     }
///     cpus += ad.lookup_integer("Cpus").unwrap_or(0);
/// }
/// assert_eq!(cpus, 28);
/// ```
#[inline]
pub fn prefetch<T: ?Sized>(value: &T) {
    let at: *const T = value;
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: `_mm_prefetch` only hints the cache and never faults; the
    // pointer is to a live value, and SSE is part of the x86_64 baseline.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_insensitive_and_order_preserving() {
        let mut ad = ClassAd::new();
        ad.insert("Zeta", 1);
        ad.insert("alpha", 2);
        ad.insert("ZETA", 3);
        let names: Vec<_> = ad.names().map(Name::as_str).collect();
        assert_eq!(names, ["Zeta", "alpha"]);
        assert_eq!(ad.get("zeta").map(ToString::to_string).as_deref(), Some("3"));
        assert!(ad.remove("ZeTa").is_some());
        assert_eq!(ad.len(), 1);
    }

    #[test]
    fn reserved_names_are_tracked() {
        let mut ad = ClassAd::new();
        ad.insert("Memory", 1);
        assert!(!ad.may_define(Name::new("TARGET")));
        assert!(ad.may_define(Name::new("Memory")));
        ad.insert("target", 2);
        assert!(ad.may_define(Name::new("TARGET")));
        ad.remove("Target");
        assert!(!ad.may_define(Name::new("TARGET")));
        let mut child = ClassAd::new();
        child.chain_to(Arc::new([("self", 1)].into_iter().collect()));
        assert!(child.may_define(Name::new("self")));
    }

    #[test]
    fn large_ads_use_the_index() {
        let mut ad = ClassAd::new();
        for i in 0..100 {
            ad.insert(format!("attr{i}").as_str(), i);
        }
        for i in 0..100 {
            let name = format!("ATTR{i}");
            assert_eq!(ad.get(name.as_str()).map(ToString::to_string), Some(i.to_string()));
        }
        assert!(ad.get("attr100").is_none());
        ad.insert("Attr50", -1);
        assert_eq!(ad.len(), 100);
        assert_eq!(ad.names().nth(50).map(Name::as_str), Some("attr50"));
        assert!(ad.remove("attr0").is_some());
        assert_eq!(ad.get("attr99").map(ToString::to_string).as_deref(), Some("99"));
        assert_eq!(ad.get("attr50").map(ToString::to_string).as_deref(), Some("-1"));
        assert_eq!(ad.names().next().map(Name::as_str), Some("attr1"));
    }

    #[test]
    fn from_attributes_merges_duplicates() {
        let attrs: Vec<(Name, Expr)> = (0..20).map(|i| (Name::new(&format!("a{}", i % 15)), Expr::from(i))).collect();
        let ad = ClassAd::from_attributes(attrs);
        assert_eq!(ad.len(), 15);
        assert_eq!(ad.get("a3").map(ToString::to_string).as_deref(), Some("18"));
        assert_eq!(ad.names().last().map(Name::as_str), Some("a14"));
    }

    #[test]
    fn chaining() {
        let mut cluster = ClassAd::new();
        cluster.insert("Owner", "alice");
        cluster.insert("Cmd", "/bin/true");
        let mut job = ClassAd::new();
        job.insert("Cmd", "/bin/false");
        job.chain_to(Arc::new(cluster));
        assert_eq!(job.lookup("owner").map(ToString::to_string).as_deref(), Some("\"alice\""));
        assert_eq!(job.lookup("cmd").map(ToString::to_string).as_deref(), Some("\"/bin/false\""));
        assert!(job.get("owner").is_none());
        assert!(job.unchain().is_some());
        assert!(job.lookup("owner").is_none());
    }
}
