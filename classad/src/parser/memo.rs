//! Attribute values parsed recently, so that an ad repeating a value of an
//! earlier ad shares the expression already built instead of parsing the
//! text again.
//!
//! Ads repeat values: every job of a cluster has the same `Requirements`,
//! every slot of a machine the same `START` and `CondorVersion`. HTCondor's
//! daemons turn on libclassad's expression cache for this reason
//! (`ENABLE_CLASSAD_CACHING`); it is keyed by attribute name and value text,
//! and so is this one. Expressions are immutable, so sharing one between
//! ads changes nothing but the time and memory spent.
//!
//! Each thread keeps one memo, a direct-mapped table indexed by the name's
//! symbol that remembers, for each name, the last value text parsed for it
//! (up to [`MAX_TEXT`] bytes) and its expression. A lookup is an index and
//! a comparison of the text; remembering a new value reuses the entry's
//! buffer. The memo holds at most [`ENTRIES`] expressions and
//! `ENTRIES * MAX_TEXT` bytes of text per thread.

use std::cell::Cell;

use super::Syntax;
use crate::expr::{Expr, Literal};
use crate::name::Name;

/// Entries per thread (a power of two): one per attribute name, more than
/// the names with non-literal values of the ads of a real pool.
const ENTRIES: usize = 512;

/// Longer value texts are not remembered.
const MAX_TEXT: usize = 2048;

/// A thread's memo; see the [module](self) documentation.
pub(crate) struct Memo {
    entries: Box<[Entry]>,
}

struct Entry {
    /// The symbol of the attribute name, `u32::MAX` when empty.
    symbol: u32,
    syntax: Syntax,
    /// The depth limit the text was parsed with: an expression parsed
    /// within a limit parses within any larger one.
    max_depth: u32,
    text: String,
    expr: Expr,
}

thread_local! {
    static MEMO: Cell<Option<Memo>> = const { Cell::new(None) };
}

impl Memo {
    /// Takes this thread's memo (a new one if it has none, or if it is
    /// taken already); give it back with [`Memo::give_back`].
    pub(crate) fn take() -> Memo {
        MEMO.with(Cell::take).unwrap_or_else(|| Memo {
            entries: (0..ENTRIES)
                .map(|_| Entry {
                    symbol: u32::MAX,
                    syntax: Syntax::New,
                    max_depth: 0,
                    text: String::new(),
                    expr: Expr::literal(Literal::Undefined),
                })
                .collect(),
        })
    }

    /// Makes `memo` this thread's memo again.
    pub(crate) fn give_back(memo: Memo) {
        MEMO.with(|cell| cell.set(Some(memo)));
    }

    /// Where the entry of `name` is.
    fn slot(name: Name) -> usize {
        name.symbol() as usize & (ENTRIES - 1)
    }

    /// The expression remembered for `name` when `input` starts with its
    /// text (parsed in `syntax` within `max_depth`), and the length of that
    /// text. The caller checks that the value ends there.
    #[inline]
    pub(crate) fn find(&self, name: Name, syntax: Syntax, max_depth: u32, input: &str) -> Option<(&Expr, usize)> {
        let entry = &self.entries[Memo::slot(name)];
        let hit = entry.symbol == name.symbol()
            && entry.syntax == syntax
            && entry.max_depth <= max_depth
            && input.as_bytes().starts_with(entry.text.as_bytes());
        hit.then_some((&entry.expr, entry.text.len()))
    }

    /// Remembers that `text` (white space around it trimmed) parsed in
    /// `syntax` within `max_depth` gave `expr`, as the value of `name`.
    pub(crate) fn remember(&mut self, name: Name, syntax: Syntax, max_depth: u32, text: &str, expr: &Expr) {
        let text = text.trim_ascii();
        if text.len() > MAX_TEXT || text.is_empty() {
            return;
        }
        let entry = &mut self.entries[Memo::slot(name)];
        entry.symbol = name.symbol();
        entry.syntax = syntax;
        entry.max_depth = max_depth;
        entry.text.clear();
        entry.text.push_str(text);
        entry.expr = expr.clone();
    }
}

/// True for the expressions that cost more to parse than to look up: all
/// but the literals stored inline (numbers, booleans, short strings).
pub(crate) fn worth_remembering(expr: &Expr) -> bool {
    match expr.as_literal() {
        None => true,
        Some(Literal::Str(text)) => text.len() > INLINE_TEXT,
        Some(_) => false,
    }
}

/// Strings up to this length are stored inside the expression.
const INLINE_TEXT: usize = 23;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_remembered_for_the_same_name_syntax_and_limit() {
        let mut memo = Memo::take();
        let (req, other) = (Name::new("MemoTestRequirements"), Name::new("MemoTestOther"));
        let expr: Expr = "a && b".parse().expect("parses");
        memo.remember(req, Syntax::New, 100, " a && b ", &expr);
        let (found, len) = memo.find(req, Syntax::New, 100, "a && b; c = 1").expect("remembered");
        assert!(found.same_as(&expr));
        assert_eq!(len, "a && b".len());
        assert!(memo.find(req, Syntax::New, 1000, "a && b").is_some());
        assert!(memo.find(req, Syntax::New, 99, "a && b").is_none());
        assert!(memo.find(req, Syntax::Old, 100, "a && b").is_none());
        assert!(memo.find(req, Syntax::New, 100, "a && c").is_none());
        assert!(memo.find(other, Syntax::New, 100, "a && b").is_none());
        // Texts too long to keep are not remembered.
        memo.remember(other, Syntax::New, 100, &"x".repeat(MAX_TEXT + 1), &expr);
        assert!(memo.find(other, Syntax::New, 100, &"x".repeat(MAX_TEXT + 1)).is_none());
        Memo::give_back(memo);
    }
}
