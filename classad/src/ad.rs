//! The `ClassAd` type: named expressions with case-insensitive,
//! case-preserving names, kept in insertion order.

use std::sync::Arc;

use indexmap::IndexMap;

use crate::expr::Expr;
use crate::name::{Name, NameBuildHasher};

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
    attrs: IndexMap<Name, Expr, NameBuildHasher>,
    chained: Option<Arc<ClassAd>>,
}

impl ClassAd {
    /// An empty ad.
    pub fn new() -> ClassAd {
        ClassAd::default()
    }

    /// An empty ad with room for `capacity` attributes.
    pub fn with_capacity(capacity: usize) -> ClassAd {
        ClassAd { attrs: IndexMap::with_capacity_and_hasher(capacity, NameBuildHasher::default()), chained: None }
    }

    /// An ad with these attributes, in this order; a repeated name keeps its
    /// first place and spelling and takes the last value.
    pub fn from_attributes(attrs: Vec<(Name, Expr)>) -> ClassAd {
        let mut ad = ClassAd::with_capacity(attrs.len());
        for (name, expr) in attrs {
            ad.insert(name, expr);
        }
        ad
    }

    /// Binds `name` to `value`, replacing (in place) any attribute of the
    /// same name. Returns the previous expression.
    pub fn insert(&mut self, name: impl Into<Name>, value: impl Into<Expr>) -> Option<Expr> {
        self.attrs.insert(name.into(), value.into())
    }

    /// Parses `expr` (new syntax) and binds it to `name`.
    pub fn insert_expr(&mut self, name: impl Into<Name>, expr: &str) -> Result<Option<Expr>, crate::ParseError> {
        let expr = crate::parse_expr(expr)?;
        Ok(self.insert(name, expr))
    }

    /// The expression bound to `name` in this ad (not its chained parent).
    pub fn get(&self, name: impl Into<Name>) -> Option<&Expr> {
        self.attrs.get(&name.into())
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
            if let Some(expr) = ad.attrs.get(&name) {
                return Some(expr);
            }
            ad = ad.chained.as_deref()?;
        }
    }

    /// The name as spelled in this ad, and its expression.
    pub fn get_key_value(&self, name: impl Into<Name>) -> Option<(Name, &Expr)> {
        self.attrs.get_key_value(&name.into()).map(|(k, v)| (*k, v))
    }

    /// True when this ad itself defines `name`.
    pub fn contains(&self, name: impl Into<Name>) -> bool {
        self.attrs.contains_key(&name.into())
    }

    /// Removes `name`, keeping the order of the other attributes.
    pub fn remove(&mut self, name: impl Into<Name>) -> Option<Expr> {
        self.attrs.shift_remove(&name.into())
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
    }

    /// The attributes in insertion order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.attrs.iter())
    }

    /// The attribute names in insertion order.
    pub fn names(&self) -> impl Iterator<Item = Name> + '_ {
        self.attrs.keys().copied()
    }

    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        self.attrs.values_mut()
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
pub struct Iter<'a>(indexmap::map::Iter<'a, Name, Expr>);

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
