//! The `ClassAd` type: named expressions with case-insensitive,
//! case-preserving names, kept in insertion order.

use std::sync::Arc;

use crate::expr::Expr;
use crate::name::Name;

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
    /// The attributes, in insertion order.
    attrs: Vec<(Name, Expr)>,
    /// Finds an attribute's position in `attrs` by its name's symbol.
    index: Index,
    chained: Option<Arc<ClassAd>>,
}

/// Ads up to this size have no index: scanning them is as fast.
const SCAN_MAX: usize = 8;

/// An open-addressing table (linear probing) from name symbols to positions
/// in the attribute list. Lookups touch one or two cache lines and compare
/// integers only. Empty, with no allocation, for small ads.
#[derive(Clone, Default)]
struct Index {
    slots: Box<[Slot]>,
}

#[derive(Clone, Copy)]
struct Slot {
    symbol: u32,
    position: u32,
}

const EMPTY: Slot = Slot { symbol: u32::MAX, position: 0 };

impl Index {
    /// A table for `attrs` (with distinct names), or none if it is small.
    fn build(attrs: &[(Name, Expr)]) -> Index {
        if attrs.len() <= SCAN_MAX {
            return Index::default();
        }
        let mut index = Index { slots: vec![EMPTY; Index::capacity_for(attrs.len())].into_boxed_slice() };
        for (position, (name, _)) in attrs.iter().enumerate() {
            index.add(name.symbol(), position);
        }
        index
    }

    /// Like [`build`](Self::build), or `None` if two attributes share a name.
    fn build_unique(attrs: &[(Name, Expr)]) -> Option<Index> {
        if attrs.len() <= SCAN_MAX {
            let unique = attrs.iter().enumerate().all(|(i, (name, _))| attrs[..i].iter().all(|(n, _)| n != name));
            return unique.then(Index::default);
        }
        let mut index = Index { slots: vec![EMPTY; Index::capacity_for(attrs.len())].into_boxed_slice() };
        for (position, (name, _)) in attrs.iter().enumerate() {
            if index.find(name.symbol()).is_some() {
                return None;
            }
            index.add(name.symbol(), position);
        }
        Some(index)
    }

    /// A power of two with room to keep the load at or below 3/4.
    fn capacity_for(len: usize) -> usize {
        (len + len / 3 + 1).next_power_of_two().max(16)
    }

    fn start(&self, symbol: u32) -> usize {
        // Fibonacci hashing: symbols are small consecutive integers.
        let bits = self.slots.len().trailing_zeros();
        (symbol.wrapping_mul(0x9E37_79B9) >> (32 - bits)) as usize
    }

    fn find(&self, symbol: u32) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut i = self.start(symbol);
        loop {
            let slot = self.slots[i];
            if slot.symbol == symbol {
                return Some(slot.position as usize);
            }
            if slot.symbol == EMPTY.symbol {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds a symbol known to be absent.
    fn add(&mut self, symbol: u32, position: usize) {
        let mask = self.slots.len() - 1;
        let mut i = self.start(symbol);
        while self.slots[i].symbol != EMPTY.symbol {
            i = (i + 1) & mask;
        }
        // Positions fit: an ad cannot hold 2^32 attributes in memory.
        self.slots[i] = Slot { symbol, position: position as u32 };
    }
}

impl ClassAd {
    /// An empty ad.
    pub fn new() -> ClassAd {
        ClassAd::default()
    }

    /// An empty ad with room for `capacity` attributes.
    pub fn with_capacity(capacity: usize) -> ClassAd {
        ClassAd { attrs: Vec::with_capacity(capacity), index: Index::default(), chained: None }
    }

    /// An ad with these attributes, in this order; a repeated name keeps its
    /// first place and spelling and takes the last value.
    pub fn from_attributes(attrs: Vec<(Name, Expr)>) -> ClassAd {
        match Index::build_unique(&attrs) {
            Some(index) => ClassAd { attrs, index, chained: None },
            None => {
                let mut ad = ClassAd::with_capacity(attrs.len());
                for (name, expr) in attrs {
                    ad.insert(name, expr);
                }
                ad
            }
        }
    }

    /// Where `name` is in `attrs`.
    #[inline]
    fn position(&self, name: Name) -> Option<usize> {
        if self.index.slots.is_empty() {
            self.attrs.iter().position(|(n, _)| *n == name)
        } else {
            self.index.find(name.symbol())
        }
    }

    /// Binds `name` to `value`, replacing (in place) any attribute of the
    /// same name. Returns the previous expression.
    pub fn insert(&mut self, name: impl Into<Name>, value: impl Into<Expr>) -> Option<Expr> {
        let name = name.into();
        let value = value.into();
        if let Some(position) = self.position(name) {
            return Some(std::mem::replace(&mut self.attrs[position].1, value));
        }
        self.attrs.push((name, value));
        let len = self.attrs.len();
        if len > SCAN_MAX {
            if self.index.slots.len() < Index::capacity_for(len) {
                self.index = Index::build(&self.attrs);
            } else {
                self.index.add(name.symbol(), len - 1);
            }
        }
        None
    }

    /// Parses `expr` (new syntax) and binds it to `name`.
    pub fn insert_expr(&mut self, name: impl Into<Name>, expr: &str) -> Result<Option<Expr>, crate::ParseError> {
        let expr = crate::parse_expr(expr)?;
        Ok(self.insert(name, expr))
    }

    /// The expression bound to `name` in this ad (not its chained parent).
    pub fn get(&self, name: impl Into<Name>) -> Option<&Expr> {
        self.get_name(name.into())
    }

    #[inline]
    fn get_name(&self, name: Name) -> Option<&Expr> {
        self.position(name).map(|position| &self.attrs[position].1)
    }

    /// The expression bound to `name` here or, failing that, in the chain of
    /// parent ads.
    pub fn lookup(&self, name: impl Into<Name>) -> Option<&Expr> {
        self.lookup_name(name.into())
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

    /// The name as spelled in this ad, and its expression.
    pub fn get_key_value(&self, name: impl Into<Name>) -> Option<(Name, &Expr)> {
        self.position(name.into()).map(|position| {
            let (name, expr) = &self.attrs[position];
            (*name, expr)
        })
    }

    /// True when this ad itself defines `name`.
    pub fn contains(&self, name: impl Into<Name>) -> bool {
        self.position(name.into()).is_some()
    }

    /// Removes `name`, keeping the order of the other attributes.
    pub fn remove(&mut self, name: impl Into<Name>) -> Option<Expr> {
        let position = self.position(name.into())?;
        let (_, expr) = self.attrs.remove(position);
        self.index = Index::build(&self.attrs);
        Some(expr)
    }

    /// Number of attributes in this ad (not counting a chained parent).
    pub fn len(&self) -> usize {
        self.attrs.len()
    }

    /// True when the ad has no attributes of its own.
    pub fn is_empty(&self) -> bool {
        self.attrs.is_empty()
    }

    /// Removes every attribute (the chain is kept).
    pub fn clear(&mut self) {
        self.attrs.clear();
        self.index = Index::default();
    }

    /// The attributes in insertion order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.attrs.iter())
    }

    /// The attribute names in insertion order.
    pub fn names(&self) -> impl Iterator<Item = Name> + '_ {
        self.attrs.iter().map(|(name, _)| *name)
    }

    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        self.attrs.iter_mut().map(|(_, expr)| expr)
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
pub struct Iter<'a>(std::slice::Iter<'a, (Name, Expr)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (Name, &'a Expr);

    fn next(&mut self) -> Option<(Name, &'a Expr)> {
        self.0.next().map(|(name, expr)| (*name, expr))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
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
