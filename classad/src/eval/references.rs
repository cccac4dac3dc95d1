//! The attributes an expression needs from outside an ad (libclassad's
//! "external references"), found by following the references that the ad
//! resolves, as `unresolved()` reports them.

use std::collections::BTreeMap;

use super::{Evaluator, Found, Frame, Val};
use crate::expr::{Expr, Node};

/// External references, ordered and deduplicated ignoring ASCII case (the
/// first spelling seen is kept).
#[derive(Default)]
pub(crate) struct References {
    names: BTreeMap<Vec<u8>, String>,
}

impl References {
    fn insert(&mut self, name: String) {
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
        let Some(node) = expr.as_node() else {
            return true;
        };
        if active.len() >= self.options.limits.max_depth as usize {
            return false;
        }
        let (name, scope) = match node {
            Node::Attr(name) => (*name, frame),
            Node::RootAttr(name) => (*name, frame.root()),
            Node::Select(base, name) => match self.eval(base, frame) {
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
            Found::Missing => {
                refs.insert(name.as_str().to_owned());
                true
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
