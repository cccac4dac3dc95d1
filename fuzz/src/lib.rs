//! What the fuzz targets share: the limits they run under, and a generator
//! of ClassAd expressions from fuzzer bytes (through `arbitrary`), so that
//! the evaluation target spends its time on expressions that parse.

use arbitrary::Arbitrary;
use classad::{ClassAd, EvalLimits, EvalOptions, Expr, Literal, ParseLimits, Parser, Semantics, Syntax};

/// Evaluation bounded tightly enough that one input runs in milliseconds;
/// the bounds themselves are what `tests/limits.rs` checks.
pub fn eval_options(semantics: Semantics) -> EvalOptions {
    EvalOptions::new().semantics(semantics).limits(EvalLimits {
        max_depth: 500,
        max_steps: 200_000,
        ..EvalLimits::default()
    })
}

/// A parser of `syntax` with the default limits.
pub fn parser(syntax: Syntax) -> Parser {
    Parser::new(ParseLimits::default()).syntax(syntax)
}

/// Whether old syntax can write `expr` so that it reads back: it has no
/// escapes (only one for the quote), so a string or a quoted attribute name
/// with a line break, or with a backslash before its quote character or at
/// its end, has no old-syntax text (in libclassad's writer either).
pub fn old_syntax_can_write(expr: &Expr) -> bool {
    use classad::Node;
    if let Some(literal) = expr.as_literal() {
        return match literal {
            Literal::Str(text) => old_text_ok(text.as_str(), '"'),
            _ => true,
        };
    }
    let Some(node) = expr.as_node() else {
        return true;
    };
    let name_ok = match node {
        Node::Attr(name) | Node::RootAttr(name) | Node::Select(_, name) => old_text_ok(name.as_str(), '\''),
        Node::Record(ad) => ad.iter().all(|(name, _)| old_text_ok(name.as_str(), '\'')),
        _ => true,
    };
    name_ok && node.children().all(old_syntax_can_write)
}

fn old_text_ok(text: &str, quote: char) -> bool {
    !(text.contains(['\n', '\r']) || text.ends_with('\\') || text.contains(&format!("\\{quote}")))
}

/// [`old_syntax_can_write`] for every attribute of `ad`.
pub fn old_syntax_can_write_ad(ad: &ClassAd) -> bool {
    ad.iter().all(|(name, expr)| old_text_ok(name.as_str(), '\'') && old_syntax_can_write(expr))
}

/// Whether every absolute time in `expr` lies in the years 0 to 9999 (a
/// day's margin for the zone), the ones whose printed year reads back: the
/// parser takes four characters of year, so `-1-12-31` and `10000-01-01`
/// do not (documented under `time-range` in docs/divergences.md).
pub fn times_print_back(expr: &Expr) -> bool {
    const YEAR_0: i64 = -62_167_219_200 + 86_400;
    const YEAR_10000: i64 = 253_402_300_800 - 86_400;
    if let Some(Literal::AbsTime(t)) = expr.as_literal() {
        return (YEAR_0..YEAR_10000).contains(&t.secs);
    }
    expr.as_node().is_none_or(|node| node.children().all(times_print_back))
}

/// An expression, as a tree the fuzzer's bytes choose.
#[derive(Arbitrary, Debug)]
pub enum Gen {
    Int(i64),
    Real(f64),
    Str(Small),
    Bool(bool),
    Undefined,
    Error,
    Attr(Pick),
    Scoped(Scope, Pick),
    Unary(u8, Box<Gen>),
    Binary(u8, Box<Gen>, Box<Gen>),
    Cond(Box<Gen>, Box<Gen>, Box<Gen>),
    Elvis(Box<Gen>, Box<Gen>),
    Call(u8, Vec<Gen>),
    List(Vec<Gen>),
    Record(Vec<(Pick, Gen)>),
    Select(Box<Gen>, Pick),
    Index(Box<Gen>, Box<Gen>),
}

/// One of a few attribute names, so that references find definitions.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct Pick(u8);

/// A short string from a fixed alphabet (including characters that need
/// escapes and regular-expression syntax).
#[derive(Arbitrary, Debug)]
pub struct Small(Vec<u8>);

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Scope {
    My,
    Target,
    Parent,
    Root,
}

const NAMES: &[&str] = &["a", "b", "c", "Memory", "Requirements", "Rank", "x", "Cpus"];
const UNARY: &[&str] = &["-", "+", "!", "~"];
const BINARY: &[&str] = &[
    "||", "&&", "|", "^", "&", "==", "!=", "=?=", "=!=", "is", "isnt", "<", "<=", ">", ">=", "<<", ">>", ">>>", "+",
    "-", "*", "/", "%",
];
const FUNCTIONS: &[&str] = &[
    "strcat",
    "substr",
    "size",
    "member",
    "regexp",
    "regexps",
    "ifThenElse",
    "isUndefined",
    "int",
    "real",
    "string",
    "floor",
    "pow",
    "sum",
    "avg",
    "min",
    "max",
    "join",
    "split",
    "splitSlotName",
    "stringListMember",
    "stringListSize",
    "toUpper",
    "formatTime",
    "absTime",
    "relTime",
    "time",
    "random",
    "eval",
    "unparse",
    "strcmp",
    "stricmp",
    "versioncmp",
    "regexpMember",
    "anyCompare",
    "allCompare",
    "evalInEachContext",
    "countMatches",
    "userMap",
    "replace",
    "replaceAll",
    "sprintf",
    "quantize",
    "bool",
    "debug",
    "envV1ToV2",
    "mergeEnvironment",
    "identity",
    "unknownFunction",
];
const ALPHABET: &[u8] = b"ab .*^$[](){}|\\\"'\n\t%s0,:-";

/// The deepest tree the generator writes (the parser's limit is higher,
/// and the parse target covers deep input).
const MAX_DEPTH: u32 = 40;

impl Gen {
    /// The expression's text (new syntax).
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out
    }

    fn write(&self, out: &mut String, depth: u32) {
        use std::fmt::Write;
        if depth > MAX_DEPTH {
            out.push('0');
            return;
        }
        let next = depth + 1;
        match self {
            Gen::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Gen::Real(x) if x.is_finite() => {
                let _ = write!(out, "{x:?}");
            }
            Gen::Real(_) => out.push_str("real(\"NaN\")"),
            Gen::Str(Small(bytes)) => {
                out.push('"');
                for b in bytes.iter().take(16) {
                    match ALPHABET[usize::from(*b) % ALPHABET.len()] {
                        b'"' => out.push_str("\\\""),
                        b'\\' => out.push_str("\\\\"),
                        b'\n' => out.push_str("\\n"),
                        c => out.push(char::from(c)),
                    }
                }
                out.push('"');
            }
            Gen::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Gen::Undefined => out.push_str("undefined"),
            Gen::Error => out.push_str("error"),
            Gen::Attr(name) => out.push_str(name.name()),
            Gen::Scoped(scope, name) => {
                out.push_str(match scope {
                    Scope::My => "MY.",
                    Scope::Target => "TARGET.",
                    Scope::Parent => "parent.",
                    Scope::Root => ".",
                });
                out.push_str(name.name());
            }
            Gen::Unary(op, e) => {
                out.push_str(UNARY[usize::from(*op) % UNARY.len()]);
                e.write_grouped(out, next);
            }
            Gen::Binary(op, l, r) => {
                l.write_grouped(out, next);
                let _ = write!(out, " {} ", BINARY[usize::from(*op) % BINARY.len()]);
                r.write_grouped(out, next);
            }
            Gen::Cond(c, t, e) => {
                c.write_grouped(out, next);
                out.push_str(" ? ");
                t.write_grouped(out, next);
                out.push_str(" : ");
                e.write_grouped(out, next);
            }
            Gen::Elvis(l, r) => {
                l.write_grouped(out, next);
                out.push_str(" ?: ");
                r.write_grouped(out, next);
            }
            Gen::Call(f, args) => {
                out.push_str(FUNCTIONS[usize::from(*f) % FUNCTIONS.len()]);
                out.push('(');
                write_separated(out, args.iter().take(6), next);
                out.push(')');
            }
            Gen::List(items) => {
                out.push('{');
                write_separated(out, items.iter().take(8), next);
                out.push('}');
            }
            Gen::Record(attrs) => {
                out.push('[');
                for (name, value) in attrs.iter().take(6) {
                    out.push_str(name.name());
                    out.push_str(" = ");
                    value.write(out, next);
                    out.push_str("; ");
                }
                out.push(']');
            }
            Gen::Select(e, name) => {
                e.write_grouped(out, next);
                out.push('.');
                out.push_str(name.name());
            }
            Gen::Index(e, i) => {
                e.write_grouped(out, next);
                out.push('[');
                i.write(out, next);
                out.push(']');
            }
        }
    }

    fn write_grouped(&self, out: &mut String, depth: u32) {
        out.push('(');
        self.write(out, depth);
        out.push(')');
    }
}

fn write_separated<'a>(out: &mut String, items: impl Iterator<Item = &'a Gen>, depth: u32) {
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item.write(out, depth);
    }
}

impl Pick {
    fn name(self) -> &'static str {
        NAMES[usize::from(self.0) % NAMES.len()]
    }
}

/// An ad of generated attributes (names from the same few as references).
#[derive(Arbitrary, Debug)]
pub struct GenAd(pub Vec<(Pick, Gen)>);

impl GenAd {
    /// The ad's text, `[ name = expr; ... ]`.
    pub fn text(&self) -> String {
        let mut out = String::from("[");
        for (name, value) in self.0.iter().take(8) {
            out.push_str(name.name());
            out.push_str(" = ");
            value.write(&mut out, 1);
            out.push_str("; ");
        }
        out.push(']');
        out
    }
}

pub mod cedar_input;
