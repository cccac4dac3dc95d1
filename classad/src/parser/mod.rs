//! Parsing new-syntax expressions and ads.
//!
//! The syntax is defined by the LALRPOP grammar in `grammar.lalrpop`
//! ([`lalr`]). Parsing first runs a hand-written recursive-descent parser
//! ([`descent`]) that builds the same trees several times faster; when it
//! cannot parse an input, the grammar parses it, so every error comes from
//! the grammar, with the line, the column and the tokens it expected.

mod attribute;
mod build;
mod descent;
mod error;
pub(crate) mod lalr;
mod memo;
mod scan;

use std::str::FromStr;

pub use attribute::{AttributeError, AttributeParser, ValueCacheLimits};
pub use error::{ParseError, ParseErrorKind};
pub(crate) use memo::Memo;

use crate::ad::ClassAd;
use crate::expr::{Expr, Node, Repr};
pub use crate::lexer::Syntax;
use crate::name::{Name, Recent};

/// Bounds on what the parser accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseLimits {
    /// Maximum height of an expression tree: nesting of parentheses, lists,
    /// ads and operators (a chain `a || b || c` is as deep as it is long).
    pub max_depth: u32,
    /// Maximum size of the input text in bytes.
    pub max_input: usize,
}

impl Default for ParseLimits {
    /// 1,000 levels (libclassad's recursive parser stops near 400 levels of
    /// parentheses) and 64 MiB of text.
    fn default() -> ParseLimits {
        ParseLimits { max_depth: 1000, max_input: 64 << 20 }
    }
}

/// A parser with configurable limits.
///
/// When a top-level ad, or an ad of an old-format stream, repeats the value
/// text an earlier ad on the same thread gave the same attribute (as every
/// job of a cluster repeats its `Requirements`, every slot of a machine its
/// `START`), the parser shares the expression it built then instead of
/// parsing the text again, as libclassad's expression cache does in
/// HTCondor's daemons. Expressions are immutable, so this is invisible but
/// for time and memory; each thread remembers at most 512 values of up to
/// 2 KB of text.
///
/// ```
/// use classad::{ParseLimits, Parser};
/// let strict = Parser::new(ParseLimits { max_depth: 2, ..ParseLimits::default() });
/// assert!(strict.parse_expr("((1))").is_err());
/// assert!(strict.parse_expr("(1)").is_ok());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Parser {
    limits: ParseLimits,
    syntax: Syntax,
}

impl Parser {
    /// A parser with the given limits, for new syntax.
    pub fn new(limits: ParseLimits) -> Parser {
        Parser { limits, syntax: Syntax::New }
    }

    /// The same parser for texts in `syntax`.
    pub fn syntax(mut self, syntax: Syntax) -> Parser {
        self.syntax = syntax;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> ParseLimits {
        self.limits
    }

    /// Parses one expression.
    pub fn parse_expr(&self, source: &str) -> Result<Expr, ParseError> {
        self.check_size(source)?;
        match descent::parse_expr(source, self.syntax, self.limits.max_depth) {
            Ok(expr) => Ok(expr),
            Err(descent::GiveUp) => lalr::parse(source, self.syntax, self.limits.max_depth),
        }
    }

    /// [`parse_expr`](Parser::parse_expr) interning names through a name
    /// cache the caller holds (the format readers, which parse a value per
    /// line, hold one for a whole ad).
    pub(crate) fn parse_expr_cached(&self, source: &str, names: &mut Recent) -> Result<Expr, ParseError> {
        self.check_size(source)?;
        match descent::parse_expr_cached(source, self.syntax, self.limits.max_depth, names) {
            Ok(expr) => Ok(expr),
            Err(descent::GiveUp) => lalr::parse(source, self.syntax, self.limits.max_depth),
        }
    }

    /// The value of attribute `name` written as `source`, the expression
    /// of `memo` when `source` is the text remembered for `name`, else
    /// parsed as [`parse_expr_cached`](Parser::parse_expr_cached) does (and
    /// remembered when it was worth parsing once only).
    pub(crate) fn parse_value_cached(
        &self,
        source: &str,
        name: Name,
        names: &mut Recent,
        memo: &mut Memo,
    ) -> Result<Expr, ParseError> {
        self.check_size(source)?;
        let text = source.trim_ascii();
        if let Some((expr, len)) = memo.find(name, self.syntax, self.limits.max_depth, text) {
            if len == text.len() {
                return Ok(expr.clone());
            }
        }
        let expr = self.parse_expr_cached(source, names)?;
        if memo::worth_remembering(&expr) {
            memo.remember(name, self.syntax, self.limits.max_depth, text, &expr);
        }
        Ok(expr)
    }

    /// Parses an ad written as a record: `[ name = expr; ... ]`.
    pub fn parse_ad(&self, source: &str) -> Result<ClassAd, ParseError> {
        self.check_size(source)?;
        if let Ok(ad) = descent::parse_ad(source, self.syntax, self.limits.max_depth) {
            return Ok(ad);
        }
        let expr = lalr::parse(source, self.syntax, self.limits.max_depth)?;
        match expr.0 {
            Repr::Node(node) => match &node.node {
                Node::Record(ad) => Ok(ClassAd::clone(ad)),
                _ => Err(not_an_ad(source)),
            },
            Repr::Lit(_) => Err(not_an_ad(source)),
        }
    }

    /// Parses with the LALRPOP grammar only (for tests comparing the parsers).
    #[doc(hidden)]
    pub fn parse_expr_with_grammar(&self, source: &str) -> Result<Expr, ParseError> {
        lalr::parse(source, self.syntax, self.limits.max_depth)
    }

    /// Parses with the fast parser only; `None` when it gives up (for tests
    /// comparing the parsers).
    #[doc(hidden)]
    pub fn parse_expr_fast(&self, source: &str) -> Option<Expr> {
        descent::parse_expr(source, self.syntax, self.limits.max_depth).ok()
    }

    fn check_size(&self, source: &str) -> Result<(), ParseError> {
        if source.len() > self.limits.max_input {
            return Err(ParseError::at(
                source,
                self.limits.max_input,
                ParseErrorKind::TooLarge,
                format!("input is larger than the limit of {} bytes", self.limits.max_input),
            ));
        }
        Ok(())
    }
}

fn not_an_ad(source: &str) -> ParseError {
    let start = source.len() - source.trim_start().len();
    ParseError::at(source, start, ParseErrorKind::NotAnAd, "expected a ClassAd `[ name = value; ... ]`")
}

/// Parses one expression in new ClassAd syntax with the default limits.
///
/// ```
/// let e = classad::parse_expr("RequestMemory * 2").unwrap();
/// assert_eq!(e.to_string(), "RequestMemory * 2");
/// ```
pub fn parse_expr(source: &str) -> Result<Expr, ParseError> {
    Parser::default().parse_expr(source)
}

/// Parses an ad in new ClassAd syntax with the default limits.
///
/// ```
/// let ad = classad::parse_ad("[ Cpus = 4; Memory = 8192 ]").unwrap();
/// assert_eq!(ad.len(), 2);
/// ```
pub fn parse_ad(source: &str) -> Result<ClassAd, ParseError> {
    Parser::default().parse_ad(source)
}

impl FromStr for Expr {
    type Err = ParseError;

    fn from_str(source: &str) -> Result<Expr, ParseError> {
        parse_expr(source)
    }
}

impl FromStr for ClassAd {
    type Err = ParseError;

    fn from_str(source: &str) -> Result<ClassAd, ParseError> {
        parse_ad(source)
    }
}

impl ClassAd {
    /// Parses `expr` (new syntax) and binds it to `name`.
    pub fn insert_expr(&mut self, name: impl Into<Name>, expr: &str) -> Result<Option<Expr>, ParseError> {
        let expr = parse_expr(expr)?;
        Ok(self.insert(name, expr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(source: &str) -> String {
        parse_expr(source).map(|e| e.to_string()).unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn prints_like_libclassad() {
        for (source, printed) in [
            ("1+2*3", "1 + 2 * 3"),
            ("(1+2)*3", "(1 + 2) * 3"),
            ("-x", " -x"),
            ("- 5", " -5"),
            ("-5", "-5"),
            ("!!x", " ! !x"),
            ("a=?=b", "a is b"),
            ("a =!= b", "a isnt b"),
            ("f(a,b)", "f(a,b)"),
            ("f( )", "f()"),
            ("a?b:c", "a ? b : c"),
            ("x ?: y + 1", "x ?: y + 1"),
            ("{1, 2, \"three\"}", "{ 1,2,\"three\" }"),
            ("{}", "{  }"),
            ("[]", "[  ]"),
            ("[a=1;b=[c=2]]", "[ a = 1; b = [ c = 2 ] ]"),
            ("[a = 1; ; b = 2;]", "[ a = 1; b = 2 ]"),
            ("'a b'", "'a b'"),
            ("'a' 'b'", "ab"),
            ("x.'q n'", "x.'q n'"),
            ("parent.x", "'parent'.x"),
            (".a", ".a"),
            ("a.b[2].c", "a.b[2].c"),
            ("\"a\" \"b\"", "\"ab\""),
            ("017", "17"),
            ("3 -2", "3 - 2"),
            ("- -5", " --5"),
            ("TRUE", "true"),
            ("relTime(\"1d\")", "relTime(\"1+00:00:00\")"),
            ("absTime(\"2020-01-01T00:00:00+01:00\")", "absTime(\"2020-01-01T00:00:00+01:00\")"),
            ("absTime(x)", "absTime(x)"),
        ] {
            assert_eq!(round(source), printed, "{source}");
        }
    }

    #[test]
    fn rejects() {
        for source in [
            "",
            "5.",
            "1.e5",
            "(1",
            "{1,}",
            "{,}",
            "a b",
            "a = b",
            "[a=1 b=2]",
            "f(,)",
            "a.true",
            "x ?: !y",
            "0x1F",
            "9223372036854775808",
            "\"\\0\"",
            "absTime(\"x\")",
            "relTime(\"x\")",
            "[a=1]]",
            "[;]",
            "['' = 1]",
        ] {
            assert!(parse_expr(source).is_err(), "{source:?} should not parse");
        }
    }

    #[test]
    fn error_positions() {
        let err = parse_expr("a +").unwrap_err();
        assert_eq!((err.line, err.column), (1, 4));
        assert!(err.message.contains("end of input"), "{err}");
        let err = parse_expr("[\n  a = 0x10\n]").unwrap_err();
        assert_eq!((err.line, err.column), (2, 7));
        assert!(err.message.contains("hexadecimal"), "{err}");
        let err = parse_expr("a ==\n   ==").unwrap_err();
        assert_eq!((err.line, err.column), (2, 4));
    }

    #[test]
    fn depth_is_bounded() {
        let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
        let err = parse_expr(&deep).unwrap_err();
        assert!(err.message.contains("deeper than the limit"), "{err}");
        let chain = vec!["x"; 5000].join(" || ");
        assert!(parse_expr(&chain).is_err());
        let ok = format!("{}1{}", "(".repeat(900), ")".repeat(900));
        assert!(parse_expr(&ok).is_ok());
    }

    #[test]
    fn ads() {
        let ad = parse_ad("[ A = 1; a = 2; B = \"x\" ]").expect("parses");
        assert_eq!(ad.to_string(), "[ A = 2; B = \"x\" ]");
        assert!(parse_ad("1 + 1").is_err());
    }
}
