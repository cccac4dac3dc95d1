//! The attributes an expression needs from outside an ad (libclassad's
//! "external references", as `unresolved()` reports them) and those of the
//! ad it uses ("internal references"), found by following the references
//! that the ad resolves. The public face is [`crate::references`].

use std::collections::BTreeMap;

use super::{Evaluator, Found, Frame, Side, Val};
use crate::expr::{Expr, Node};

/// External references, ordered and deduplicated ignoring ASCII case (the
/// first spelling seen is kept).
#[derive(Default)]
pub(crate) struct References {
    names: BTreeMap<Vec<u8>, String>,
}

impl References {
    pub(crate) fn insert(&mut self, name: String) {
        self.names.entry(name.to_ascii_lowercase().into_bytes()).or_insert(name);
    }

    /// The references in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.names.values().map(String::as_str)
    }
}

impl<'a> Evaluator<'a> {
    /// Adds to `refs` the external references of `expr` evaluated in
    /// `frame`: names no scope defines (as written), and `base.name` where
    /// `base` is UNDEFINED (as `TARGET.Memory` is outside a match). A name
    /// the ad defines is followed into its expression. False when the
    /// search fails (a cycle, a selection from something that is not an
    /// ad, or too deep): libclassad then reports nothing.
    pub(crate) fn external_references(&mut self, expr: &'a Expr, frame: &'a Frame<'a>, refs: &mut References) -> bool {
        let mut active = Vec::new();
        self.references_in(expr, frame, refs, &mut active)
    }

    fn references_in(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        refs: &mut References,
        active: &mut Vec<usize>,
    ) -> bool {
        stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_GROWTH, || {
            self.references_in_node(expr, frame, refs, active)
        })
    }

    fn references_in_node(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        refs: &mut References,
        active: &mut Vec<usize>,
    ) -> bool {
        let Some(node) = expr.as_node() else {
            return true;
        };
        if active.len() >= self.options.limits.max_depth as usize {
            return false;
        }
        let (name, scope) = match node {
            Node::Attr(name) => (*name, frame),
            Node::RootAttr(name) => (*name, frame.root()),
            Node::Select(base, name) => match self.scope_of(base, frame) {
                Val::Undefined => {
                    refs.insert(format!("{base}.{name}"));
                    return true;
                }
                Val::Ad(scope) => (*name, scope),
                _ => return false,
            },
            // Everything else, nested ads included, is searched in this
            // same scope, as libclassad does.
            node => return node.children().all(|child| self.references_in(child, frame, refs, active)),
        };
        match self.lookup(name, scope) {
            // `parent` at the top has no value either.
            Found::Missing | Found::Value(Val::Undefined) => {
                refs.insert(name.as_str().to_owned());
                true
            }
            // A name for a whole ad (`self`, `MY` under old semantics):
            // libclassad searches every attribute of it.
            Found::Value(Val::Ad(whole)) => {
                whole.ad.iter().all(|(_, attr)| self.references_in(attr, whole, refs, active))
            }
            Found::Value(_) => true,
            Found::Expr(found, scope) => {
                let key = found as *const Expr as usize;
                if active.contains(&key) {
                    return false;
                }
                active.push(key);
                let complete = self.references_in(found, scope, refs, active);
                active.pop();
                complete
            }
        }
    }
}

impl<'a> Evaluator<'a> {
    /// The value of the scope part of a selection, for the reference
    /// searches: an ad written in place there has no enclosing scope (it
    /// is not part of the ad searched), anything else is evaluated.
    fn scope_of(&mut self, base: &'a Expr, frame: &'a Frame<'a>) -> Val<'a> {
        match base.as_node() {
            Some(Node::Record(ad)) => Val::Ad(self.keep_frame(Frame { ad, parent: None, side: Side::Detached })),
            _ => self.eval(base, frame),
        }
    }

    /// Adds to `refs` the attributes of the ad at `root` that `expr`,
    /// evaluated in `frame`, uses, following them into their own
    /// expressions (libclassad's `_GetInternalReferences`). False when the
    /// search fails (too deep, which is how a cycle ends, or a selection
    /// from something that is neither an ad nor UNDEFINED).
    pub(crate) fn internal_references(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        root: &'a Frame<'a>,
        refs: &mut References,
    ) -> bool {
        self.internal_in(expr, frame, root, refs, false, 0)
    }

    fn internal_in(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        root: &'a Frame<'a>,
        refs: &mut References,
        scoping: bool,
        depth: u32,
    ) -> bool {
        stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_GROWTH, || {
            self.internal_in_node(expr, frame, root, refs, scoping, depth)
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn internal_in_node(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        root: &'a Frame<'a>,
        refs: &mut References,
        scoping: bool,
        depth: u32,
    ) -> bool {
        let Some(node) = expr.as_node() else {
            return true;
        };
        if depth >= self.options.limits.max_depth {
            return false;
        }
        let (name, scope) = match node {
            Node::Attr(name) => (*name, frame),
            Node::RootAttr(name) => (*name, frame.root()),
            Node::Select(base, name) => {
                // The scope part is searched too, as a scope (an ad written
                // there is not searched).
                if !self.internal_in(base, frame, root, refs, true, depth) {
                    return false;
                }
                match self.scope_of(base, frame) {
                    Val::Undefined => return true,
                    Val::Ad(scope) => (*name, scope),
                    _ => return false,
                }
            }
            // An ad written as the scope of a selection is not searched;
            // being such a scope passes down through operators and the
            // attributes followed, as in libclassad.
            Node::Record(_) if scoping => return true,
            // Levels count as in libclassad: the elements of lists and ads
            // (and the references followed, below), not operators.
            node @ (Node::List(_) | Node::Record(_)) => {
                return node.children().all(|child| self.internal_in(child, frame, root, refs, scoping, depth + 1));
            }
            node => {
                return node.children().all(|child| self.internal_in(child, frame, root, refs, scoping, depth));
            }
        };
        match self.lookup(name, scope) {
            // A name for a whole ad (`self`, `MY` under old semantics) used
            // as a value, not as a scope: libclassad searches all of it.
            Found::Value(Val::Ad(whole)) if !scoping => {
                whole.ad.iter().all(|(_, attr)| self.internal_in(attr, whole, root, refs, scoping, depth + 1))
            }
            Found::Missing | Found::Value(_) => true,
            Found::Expr(found, found_in) => {
                // Only the root ad's own attributes count.
                if std::ptr::eq(found_in.ad, root.ad) && found_in.parent.is_none() {
                    refs.insert(name.as_str().to_owned());
                }
                self.internal_in(found, found_in, root, refs, scoping, depth + 1)
            }
        }
    }
}
