//! Node construction shared by both parsers: the depth limit, time
//! literals, ad literals.

use std::borrow::Cow;
use std::sync::Arc;

use crate::ad::ClassAd;
use crate::expr::{Call, Expr, Literal, Node, Repr};
use crate::name::{Name, TooManyNames};
use crate::time::{AbsTime, RelTime};

/// Why a construct was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BuildError {
    /// The tree would be deeper than the limit.
    TooDeep,
    /// An `absTime("...")` or `relTime("...")` literal with unreadable text.
    BadTime(&'static str),
    /// `[;]`: separators without any attribute.
    EmptyAd,
    /// An attribute called `''`.
    EmptyName,
    /// A new name with the table of names full.
    TooManyNames(TooManyNames),
}

impl From<TooManyNames> for BuildError {
    fn from(error: TooManyNames) -> BuildError {
        BuildError::TooManyNames(error)
    }
}

/// Wraps `node`, unless the tree would be deeper than `max_depth`.
pub(crate) fn node(node: Node, max_depth: u32) -> Result<Expr, BuildError> {
    let expr = Expr::node(node);
    if expr.depth() > max_depth {
        return Err(BuildError::TooDeep);
    }
    Ok(expr)
}

/// An attribute reference: a leaf node, shared by every reference to the
/// same spelling this thread builds (one allocation per name instead of
/// one per reference; real ads hold tens of thousands of references to a
/// few hundred names). Subject to the depth limit like any node.
pub(crate) fn attr(name: Name, max_depth: u32) -> Result<Expr, BuildError> {
    thread_local! {
        static ATTRS: std::cell::RefCell<rustc_hash::FxHashMap<u32, Expr>> = Default::default();
    }
    /// The cache stops growing here (adversarial input with endless names).
    const MAX_CACHED: usize = 1 << 16;
    if max_depth == 0 {
        return Err(BuildError::TooDeep);
    }
    ATTRS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(expr) = cache.get(&name.spelling_id()) {
            return Ok(expr.clone());
        }
        let expr = Expr::node(Node::Attr(name));
        if cache.len() < MAX_CACHED {
            cache.insert(name.spelling_id(), expr.clone());
        }
        Ok(expr)
    })
}

/// A call, or a time literal when the function is `absTime`/`relTime` and
/// its one argument is a string literal.
pub(crate) fn call(name: Name, args: Vec<Expr>, max_depth: u32) -> Result<Expr, BuildError> {
    if let [Expr(Repr::Lit(Literal::Str(text)))] = args.as_slice() {
        if name.is("absTime") {
            return AbsTime::parse(text)
                .map(|t| Expr::literal(Literal::AbsTime(t)))
                .ok_or(BuildError::BadTime("absTime"));
        }
        if name.is("relTime") {
            return RelTime::parse(text)
                .map(|t| Expr::literal(Literal::RelTime(t)))
                .ok_or(BuildError::BadTime("relTime"));
        }
    }
    let builtin = name.builtin();
    self::node(Node::Call(Call { name, builtin, args: args.into() }), max_depth)
}

/// The ad of an ad literal. Semicolons without any attribute (`[;]`) are an
/// error, as in libclassad (and so are empty names: [`attribute_name`]).
pub(crate) fn ad<I>(attrs: I, had_separators: bool) -> Result<ClassAd, BuildError>
where
    I: IntoIterator<Item = (Name, Expr), IntoIter: ExactSizeIterator>,
{
    let attrs = attrs.into_iter();
    if had_separators && attrs.len() == 0 {
        return Err(BuildError::EmptyAd);
    }
    Ok(ClassAd::from_attributes(attrs))
}

/// The ad of an ad literal whose attributes are `scratch[start..]`, taken
/// out of `scratch`; as [`ad`] otherwise.
pub(crate) fn ad_from_scratch(
    scratch: &mut Vec<(Name, Expr)>,
    start: usize,
    had_separators: bool,
) -> Result<ClassAd, BuildError> {
    if had_separators && scratch.len() == start {
        return Err(BuildError::EmptyAd);
    }
    Ok(ClassAd::take_attributes(scratch, start))
}

/// The name of an attribute being defined: never empty.
pub(crate) fn attribute_name(name: Name) -> Result<Name, BuildError> {
    if name == empty_name() {
        return Err(BuildError::EmptyName);
    }
    Ok(name)
}

fn empty_name() -> Name {
    static EMPTY: std::sync::OnceLock<Name> = std::sync::OnceLock::new();
    *EMPTY.get_or_init(|| Name::new(""))
}

/// An ad literal as an expression.
pub(crate) fn record(attrs: Vec<(Name, Expr)>, had_separators: bool, max_depth: u32) -> Result<Expr, BuildError> {
    node(Node::Record(Arc::new(ad(attrs, had_separators)?)), max_depth)
}

/// Adjacent string literals (or quoted names) concatenate.
pub(crate) fn concat(parts: Vec<Cow<'_, str>>) -> String {
    let mut parts = parts.into_iter();
    let mut text = parts.next().map(Cow::into_owned).unwrap_or_default();
    for part in parts {
        text.push_str(&part);
    }
    text
}
