//! Renaming scope prefixes in expressions (`TARGET.x` to `x`, `JOB.x` to
//! `TARGET.x`, ...).

use classad::{Expr, Node};

/// Deepest expression rewritten; deeper ones are left as they are.
const MAX_DEPTH: u32 = 1000;

/// `expr` with every `FROM.attr` (any case) replaced as `map` says: by
/// `TO.attr`, or by `attr` when `TO` is empty.
/// (`TARGET.a + JOB.b` with `[("TARGET", ""), ("JOB", "TARGET")]` is
/// `a + TARGET.b`.)
pub(crate) fn rename_scopes(expr: &Expr, map: &[(&str, &str)]) -> Expr {
    if expr.depth() > MAX_DEPTH {
        return expr.clone();
    }
    rewrite(expr, map)
}

fn rewrite(expr: &Expr, map: &[(&str, &str)]) -> Expr {
    let Some(node) = expr.as_node() else { return expr.clone() };
    let r = |e: &Expr| rewrite(e, map);
    match node {
        Node::Select(scope, name) => {
            if let Some(Node::Attr(s)) = scope.as_node() {
                if let Some((_, to)) = map.iter().find(|(from, _)| s.as_str().eq_ignore_ascii_case(from)) {
                    return if to.is_empty() { Expr::attr(*name) } else { Expr::select(Expr::attr(*to), *name) };
                }
            }
            Expr::select(r(scope), *name)
        }
        Node::Attr(_) | Node::RootAttr(_) | Node::Record(_) => expr.clone(),
        Node::Index(a, b) => Expr::node(Node::Index(r(a), r(b))),
        Node::Unary(op, a) => Expr::node(Node::Unary(*op, r(a))),
        Node::Binary(op, a, b) => Expr::node(Node::Binary(*op, r(a), r(b))),
        Node::Cond(a, b, c) => Expr::node(Node::Cond(r(a), r(b), r(c))),
        Node::Elvis(a, b) => Expr::node(Node::Elvis(r(a), r(b))),
        Node::Paren(a) => Expr::node(Node::Paren(r(a))),
        Node::Call(call) => Expr::call(call.name(), call.args().iter().map(r).collect()),
        Node::List(items) => Expr::list(items.iter().map(r).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_prefixes_only() {
        let e: Expr = r#"TARGET.a + f(job.b, [x = 1], {MY.c}) + "TARGET.s""#.parse().unwrap();
        let out = rename_scopes(&e, &[("TARGET", ""), ("JOB", "TARGET")]);
        assert_eq!(out.to_string(), r#"a + f(TARGET.b,[ x = 1 ],{ MY.c }) + "TARGET.s""#);
    }
}
