//! The attributes an expression needs from outside an ad (libclassad's
//! "external references", as `unresolved()` reports them) and those of the
//! ad it uses ("internal references"), found by following the references
//! that the ad resolves. The public face is [`crate::references`].

use std::collections::BTreeMap;

use super::{Evaluator, Found, Frame, Side, Val};
use crate::expr::{Expr, Node};
use crate::name::reserved;
use crate::name::Name;

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

/// What a search for references keeps across its recursion.
struct Search<'a> {
    /// Addresses of the attribute expressions being searched (a cycle
    /// when one is reached again).
    active: Vec<usize>,
    /// The ad searched in: the root scope (`.x`, `root`) everywhere, in ads
    /// written in the expression too.
    root: &'a Frame<'a>,
    /// The scope of an ad written at this point (`[a = 1].a`): the
    /// innermost ad written around it, or the ad whose attribute is being
    /// searched; none in the expression itself, which is not in an ad.
    lexical: Option<&'a Frame<'a>>,
    /// Internal references only: the scope where a lookup that found
    /// nothing left libclassad's "current ad", which later unscoped names
    /// start from until the reference being followed is done (see
    /// [`Evaluator::internal_in_node`]).
    stale: Option<&'a Frame<'a>>,
}

impl<'a> Search<'a> {
    fn new(root: &'a Frame<'a>) -> Search<'a> {
        Search { active: Vec::new(), root, lexical: None, stale: None }
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
        let mut search = Search::new(frame);
        self.references_in(expr, frame, refs, &mut search)
    }

    fn references_in(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        refs: &mut References,
        search: &mut Search<'a>,
    ) -> bool {
        stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_GROWTH, || {
            self.references_in_node(expr, frame, refs, search)
        })
    }

    fn references_in_node(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        refs: &mut References,
        search: &mut Search<'a>,
    ) -> bool {
        let Some(node) = expr.as_node() else {
            return true;
        };
        if search.active.len() >= self.options.limits.max_depth as usize || !self.walk_step() {
            return false;
        }
        let (name, scope) = match node {
            Node::Attr(name) => (*name, frame),
            Node::RootAttr(name) => (*name, search.root),
            Node::Select(base, name) => match self.scope_of(base, frame, search) {
                Val::Undefined => {
                    refs.insert(format!("{base}.{}", name.as_str()));
                    return true;
                }
                Val::Ad(scope) => (*name, scope),
                _ => return false,
            },
            // Everything else, nested ads included, is searched in this
            // same scope, as libclassad does.
            Node::Record(ad) => {
                return self.in_record(ad, search, |ev, search| {
                    node.children().all(|child| ev.references_in(child, frame, refs, search))
                })
            }
            node => return node.children().all(|child| self.references_in(child, frame, refs, search)),
        };
        match self.lookup_rooted(name, scope, search.root) {
            // `parent` at the top has no value either.
            Found::Missing | Found::Value(Val::Undefined) => {
                refs.insert(name.as_str().to_owned());
                true
            }
            // A name for a whole ad (`self`, `root`, `MY` under old
            // semantics): libclassad searches every attribute of it, in the
            // scope where the name was found (not the ad's own: the same
            // for `self`). Each is a level, as a reference followed is (so
            // `[ p = self ].p` ends as the cycle it is).
            Found::Value(Val::Ad(whole)) => {
                whole.ad.iter().all(|(_, attr)| self.follow_references(attr, scope, whole, refs, search))
            }
            Found::Value(_) => true,
            Found::Expr(found, scope) => self.follow_references(found, scope, scope, refs, search),
        }
    }

    /// The external references of an attribute's expression `found` (an
    /// attribute of `owner`), reached from a reference and searched in
    /// `scope`: one level deeper, and a failure when it is already being
    /// searched (a cycle).
    fn follow_references(
        &mut self,
        found: &'a Expr,
        scope: &'a Frame<'a>,
        owner: &'a Frame<'a>,
        refs: &mut References,
        search: &mut Search<'a>,
    ) -> bool {
        let key = found as *const Expr as usize;
        if search.active.contains(&key) {
            return false;
        }
        search.active.push(key);
        let lexical = search.lexical.replace(owner);
        let complete = self.references_in(found, scope, refs, search);
        search.lexical = lexical;
        search.active.pop();
        complete
    }

    /// Runs `f` inside an ad written in an expression: ads written in its
    /// attributes have it as their enclosing scope.
    fn in_record<T>(
        &mut self,
        ad: &'a crate::ClassAd,
        search: &mut Search<'a>,
        f: impl FnOnce(&mut Self, &mut Search<'a>) -> T,
    ) -> T {
        let frame = self.keep_frame(Frame { ad, parent: search.lexical, side: Side::Detached });
        let lexical = search.lexical.replace(frame);
        let result = f(self, search);
        search.lexical = lexical;
        result
    }

    /// [`lookup`](Self::lookup) in a search or flattening of the ad at
    /// `root`: `root` and `toplevel` name that ad, from an ad written in the
    /// expression (which has no enclosing scope) too.
    pub(super) fn lookup_rooted(&self, name: Name, scope: &'a Frame<'a>, root: &'a Frame<'a>) -> Found<'a> {
        match self.lookup(name, scope) {
            Found::Value(Val::Ad(_)) if matches!(name.symbol(), reserved::ROOT | reserved::TOPLEVEL) => {
                Found::Value(Val::Ad(root))
            }
            found => found,
        }
    }

    /// Counts a step of a search against the evaluation's step limit;
    /// false (and the evaluation failed) past it. Searches and flattening
    /// follow references without remembering what they have seen, as
    /// libclassad does, so a chain of attributes each using the next twice
    /// would take exponential time without this bound.
    pub(super) fn walk_step(&mut self) -> bool {
        if self.failed() {
            return false;
        }
        self.steps += 1;
        if self.steps > self.max_steps {
            self.fail();
            return false;
        }
        true
    }

    /// The value of the scope part of a selection, for the searches: an
    /// ad written there has its lexical scope (none in the expression
    /// itself, which is not part of the ad searched); `root` and
    /// `toplevel` (when no ad defines them) name the ad searched, from
    /// anywhere; anything else is evaluated.
    fn scope_of(&mut self, base: &'a Expr, frame: &'a Frame<'a>, search: &Search<'a>) -> Val<'a> {
        match base.as_node() {
            Some(Node::Record(ad)) => {
                let side = search.lexical.map_or(Side::Detached, |scope| scope.side);
                Val::Ad(self.keep_frame(Frame { ad, parent: search.lexical, side }))
            }
            Some(Node::Paren(inner)) => self.scope_of(inner, frame, search),
            Some(Node::Attr(name)) if name.is_reserved() => match self.lookup_rooted(*name, frame, search.root) {
                Found::Value(value) => value,
                _ => self.eval(base, frame),
            },
            _ => self.eval(base, frame),
        }
    }

    /// Adds to `refs` the attributes of the ad at `root` that `expr`,
    /// evaluated in `frame`, uses, following them into their own
    /// expressions (libclassad's `_GetInternalReferences`). False when the
    /// search fails (too deep, which is how a cycle ends, or a selection
    /// from something that is neither an ad nor UNDEFINED).
    pub(crate) fn internal_references(&mut self, expr: &'a Expr, frame: &'a Frame<'a>, refs: &mut References) -> bool {
        let mut search = Search::new(frame);
        self.internal_in(expr, frame, refs, &mut search, false, 0)
    }

    fn internal_in(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        refs: &mut References,
        search: &mut Search<'a>,
        scoping: bool,
        depth: u32,
    ) -> bool {
        stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_GROWTH, || {
            self.internal_in_node(expr, frame, refs, search, scoping, depth)
        })
    }

    /// One node of the internal search. It reproduces a quirk of
    /// libclassad's: a lookup that finds nothing leaves the "current ad"
    /// at the outermost scope it searched, and unscoped names after it
    /// start there until the reference being followed is done. That only
    /// shows after a selection from an ad written in the expression
    /// (`[a = 1].b + X` does not report `X`), or in a nested ad (after
    /// `Nested.b` with `b = Z + c`, `c` is looked for in the ad, not in
    /// `Nested`).
    fn internal_in_node(
        &mut self,
        expr: &'a Expr,
        frame: &'a Frame<'a>,
        refs: &mut References,
        search: &mut Search<'a>,
        scoping: bool,
        depth: u32,
    ) -> bool {
        let Some(node) = expr.as_node() else {
            return true;
        };
        if depth >= self.options.limits.max_depth || !self.walk_step() {
            return false;
        }
        let current = search.stale.unwrap_or(frame);
        let (name, scope) = match node {
            Node::Attr(name) => (*name, current),
            Node::RootAttr(name) => (*name, search.root),
            Node::Select(base, name) => {
                // The scope part is searched too, as a scope (an ad written
                // there is not searched).
                if !self.internal_in(base, frame, refs, search, true, depth) {
                    return false;
                }
                let current = search.stale.unwrap_or(frame);
                match self.scope_of(base, current, search) {
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
            Node::Record(ad) => {
                return self.in_record(ad, search, |ev, search| {
                    node.children().all(|child| ev.internal_in(child, frame, refs, search, scoping, depth + 1))
                });
            }
            Node::List(_) => {
                return node.children().all(|child| self.internal_in(child, frame, refs, search, scoping, depth + 1));
            }
            node => {
                return node.children().all(|child| self.internal_in(child, frame, refs, search, scoping, depth));
            }
        };
        match self.lookup_rooted(name, scope, search.root) {
            // A name for a whole ad (`self`, `root`, `MY` under old
            // semantics) used as a value, not as a scope: libclassad
            // searches all of it, in the scope where the name was found.
            Found::Value(Val::Ad(whole)) if !scoping => {
                let saved = search.stale.take();
                let lexical = search.lexical.replace(whole);
                let complete =
                    whole.ad.iter().all(|(_, attr)| self.internal_in(attr, scope, refs, search, scoping, depth + 1));
                search.lexical = lexical;
                search.stale = saved;
                complete
            }
            // `parent` where there is none: the lookup ended where it
            // began.
            Found::Value(Val::Undefined) => {
                search.stale = Some(scope);
                true
            }
            Found::Value(_) => true,
            Found::Missing => {
                // The quirk above: the lookup ended at the outermost scope
                // (the ad searched, or an ad written in the expression).
                search.stale = Some(scope.root());
                true
            }
            Found::Expr(found, found_in) => {
                // Only the root ad's own attributes count.
                if std::ptr::eq(found_in.ad, search.root.ad) && found_in.parent.is_none() {
                    refs.insert(name.as_str().to_owned());
                }
                let saved = search.stale.take();
                let lexical = search.lexical.replace(found_in);
                let complete = self.internal_in(found, found_in, refs, search, scoping, depth + 1);
                search.lexical = lexical;
                search.stale = saved;
                complete
            }
        }
    }
}
