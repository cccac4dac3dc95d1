//! The checks of attribute references against the names and values the
//! ads define: unknown attributes (with a suggestion one typo away) and
//! case-sensitive comparisons with strings the ads have in another case.

use crate::expr::{BinaryOp, Expr, Literal};
use crate::name::Name;

use super::pass::Pass;
use super::reference::{reference_of, strip, Scope};
use super::types::literal_of;
use super::Kind;

impl Pass<'_, '_, '_> {
    /// `x =?= "linux"` where the ads have x only as `"LINUX"`.
    pub(super) fn case_sensitive(&mut self, expr: &Expr, op: BinaryOp, a: &Expr, b: &Expr) {
        for (side, other) in [(a, b), (b, a)] {
            let Some(Literal::Str(text)) = strip(side).as_literal() else {
                continue;
            };
            let Some((scope, name)) = reference_of(strip(other)) else {
                return;
            };
            let in_my = match scope {
                Scope::My => true,
                Scope::Target => false,
                Scope::Unscoped => self.my.is_some_and(|my| my.contains(name)),
            };
            let (exact, other_case) = if in_my {
                match self.my.and_then(|my| literal_of(my, name)) {
                    Some(Literal::Str(value)) if value.as_str() != text.as_str() => {
                        (false, value.as_str().eq_ignore_ascii_case(text.as_str()).then(|| value.as_str().to_owned()))
                    }
                    _ => (true, None),
                }
            } else {
                self.linter.reference_string(name, text.as_str())
            };
            if exact {
                return;
            }
            if let Some(seen) = other_case {
                let meta = if op == BinaryOp::Is { "=?=" } else { "=!=" };
                let replaced = Expr::literal(Literal::Str(seen.as_str().into()));
                let suggestion = if std::ptr::eq(side, a) {
                    format!("{replaced} {meta} {b}")
                } else {
                    format!("{a} {meta} {replaced}")
                };
                self.report(
                    Kind::CaseSensitiveComparison,
                    expr,
                    format!(
                        "`{meta}` compares strings case-sensitively, and the ads have {name} = {replaced}, never {side}"
                    ),
                    Some(suggestion),
                );
            }
            return;
        }
    }

    /// A reference to `name` looked up as `scope` says.
    pub(super) fn attribute(&mut self, expr: &Expr, name: Name, scope: Scope) {
        if name.is_reserved() || self.guarded.contains(&name.symbol()) {
            return;
        }
        let in_my = self.my.is_some_and(|ad| ad.contains(name));
        let in_reference = self.linter.names.contains(&name.symbol());
        let (known, mine, theirs) = match scope {
            Scope::My => match self.my {
                Some(my) => (in_my, Some(my), false),
                None => return,
            },
            Scope::Target | Scope::Unscoped if self.linter.reference.is_empty() => return,
            Scope::Target => (in_reference, None, true),
            Scope::Unscoped => (in_my || in_reference, self.my, true),
        };
        if known || !self.reported_names.insert(name.symbol()) {
            return;
        }
        let theirs = if theirs { &self.linter.spellings[..] } else { &[] };
        let close = theirs
            .iter()
            .copied()
            .chain(mine.into_iter().flat_map(|ad| ad.names()))
            .map(|n| n.as_str())
            .find(|candidate| near(candidate, name.as_str()))
            .map(str::to_owned);
        let place = if scope == Scope::My { "the ad does not define" } else { "no reference ad defines" };
        let message = match &close {
            Some(close) => format!("{place} {name} (did you mean {close}?): it is always UNDEFINED"),
            None => format!("{place} {name}: it is always UNDEFINED"),
        };
        let suggestion = close.map(|close| expr.to_string().replace(name.as_str(), &close));
        self.report(Kind::UnknownAttribute, expr, message, suggestion);
    }
}

/// Whether two names differ by one typo: a character added, dropped or
/// changed, or two neighbours swapped (case aside).
fn near(candidate: &str, name: &str) -> bool {
    if candidate.eq_ignore_ascii_case(name) {
        return false;
    }
    let (a, b) = (candidate.to_ascii_lowercase(), name.to_ascii_lowercase());
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > 1 || a.len() < 4 {
        return false;
    }
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let longest = a.len().max(b.len());
    let swapped = a.len() == b.len()
        && prefix + suffix + 2 == longest
        && a.get(prefix) == b.get(prefix + 1)
        && a.get(prefix + 1) == b.get(prefix);
    prefix + suffix + 1 >= longest || swapped
}
