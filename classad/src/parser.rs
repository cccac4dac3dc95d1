//! Parsing new-syntax expressions and ads.
//!
//! The grammar is in `grammar.lalrpop`; this module holds what its actions
//! call ([`Builder`]), the limits, and the error type with line and column.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::ad::ClassAd;
use crate::expr::{BinaryOp, Call, Expr, Literal, Node, Repr, UnaryOp};
use crate::lexer::{LexError, Lexer, Token};
use crate::name::Name;
use crate::time::{AbsTime, RelTime};

#[allow(clippy::all, clippy::unwrap_used, missing_docs, unused_qualifications, unused_parens)]
mod grammar {
    lalrpop_util::lalrpop_mod!(pub(crate) grammar);
    pub(crate) use grammar::ExprParser;
}

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

/// A parse failure, with the 1-based line and column of the offending
/// token and what the parser expected there.
///
/// ```
/// let err = classad::parse_expr("1 +\n (2 * ]").unwrap_err();
/// assert_eq!((err.line, err.column), (2, 7));
/// assert!(err.to_string().starts_with("line 2, column 7: unexpected `]`"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    /// 1-based line of the error.
    pub line: usize,
    /// 1-based column (in characters) of the error.
    pub column: usize,
    /// Byte offset of the error in the input.
    pub offset: usize,
    /// What went wrong, including what was expected.
    pub message: String,
    /// The tokens that would have been accepted at that point.
    pub expected: Vec<String>,
}

impl ParseError {
    pub(crate) fn at(source: &str, offset: usize, message: impl Into<String>) -> ParseError {
        let (line, column) = line_column(source, offset);
        ParseError { line, column, offset, message: message.into(), expected: Vec::new() }
    }
}

/// 1-based line and column of a byte offset.
pub(crate) fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// Errors raised by grammar actions and the lexer, before positions are
/// turned into lines and columns.
#[derive(Clone, Debug, PartialEq)]
pub enum GrammarError {
    /// A tokenizing error.
    Lex(LexError),
    /// The tree would exceed [`ParseLimits::max_depth`].
    TooDeep {
        /// Byte offset of the construct that was too deep.
        at: usize,
    },
    /// `[;]`: separators without any attribute.
    EmptyAd {
        /// Byte offset of the ad's first separator.
        at: usize,
    },
    /// An attribute with the empty name `''`.
    EmptyName {
        /// Byte offset of the ad's body.
        at: usize,
    },
    /// An `absTime("...")` / `relTime("...")` literal with unreadable text.
    BadTime {
        /// Byte offset of the literal.
        at: usize,
        /// Which kind of literal.
        what: &'static str,
    },
}

type LalrError<'s> = lalrpop_util::ParseError<usize, Token<'s>, GrammarError>;

/// Builds nodes for the grammar's actions, enforcing the depth limit.
#[doc(hidden)]
pub struct Builder {
    max_depth: u32,
}

impl Builder {
    fn node<'s>(&self, at: usize, node: Node) -> Result<Expr, LalrError<'s>> {
        let expr = Expr::node(node);
        if expr.depth() > self.max_depth {
            return Err(lalrpop_util::ParseError::User { error: GrammarError::TooDeep { at } });
        }
        Ok(expr)
    }

    pub(crate) fn cond<'s>(&self, at: usize, c: Expr, t: Expr, e: Expr) -> Result<Expr, LalrError<'s>> {
        self.node(at, Node::Cond(c, t, e))
    }

    pub(crate) fn binary<'s>(&self, at: usize, op: BinaryOp, a: Expr, b: Expr) -> Result<Expr, LalrError<'s>> {
        self.node(at, Node::Binary(op, a, b))
    }

    pub(crate) fn unary<'s>(&self, at: usize, op: UnaryOp, e: Expr) -> Result<Expr, LalrError<'s>> {
        self.node(at, Node::Unary(op, e))
    }

    pub(crate) fn elvis<'s>(&self, at: usize, a: Expr, b: Expr) -> Result<Expr, LalrError<'s>> {
        self.node(at, Node::Elvis(a, b))
    }

    pub(crate) fn select<'s>(&self, at: usize, e: Expr, name: Name) -> Result<Expr, LalrError<'s>> {
        self.node(at, Node::Select(e, name))
    }

    pub(crate) fn index<'s>(&self, at: usize, e: Expr, i: Expr) -> Result<Expr, LalrError<'s>> {
        self.node(at, Node::Index(e, i))
    }

    pub(crate) fn attr<'s>(&self, at: usize, name: Name) -> Result<Expr, LalrError<'s>> {
        self.node(at, Node::Attr(name))
    }

    pub(crate) fn root_attr<'s>(&self, at: usize, name: Name) -> Result<Expr, LalrError<'s>> {
        self.node(at, Node::RootAttr(name))
    }

    pub(crate) fn paren<'s>(&self, at: usize, e: Expr) -> Result<Expr, LalrError<'s>> {
        self.node(at, Node::Paren(e))
    }

    pub(crate) fn list<'s>(&self, at: usize, items: Vec<Expr>) -> Result<Expr, LalrError<'s>> {
        self.node(at, Node::List(items.into()))
    }

    pub(crate) fn record<'s>(&self, at: usize, attrs: Vec<(Name, Expr)>) -> Result<Expr, LalrError<'s>> {
        let mut ad = ClassAd::with_capacity(attrs.len());
        ad.extend(attrs);
        self.node(at, Node::Record(Arc::new(ad)))
    }

    /// A call, or a time literal when the function is `absTime`/`relTime`
    /// and its one argument is a string literal.
    pub(crate) fn call<'s>(&self, at: usize, name: &str, args: Vec<Expr>) -> Result<Expr, LalrError<'s>> {
        if let [Expr(Repr::Lit(Literal::Str(text)))] = args.as_slice() {
            let literal = if name.eq_ignore_ascii_case("absTime") {
                Some(AbsTime::parse(text).map(Literal::AbsTime).ok_or("absTime"))
            } else if name.eq_ignore_ascii_case("relTime") {
                Some(RelTime::parse(text).map(Literal::RelTime).ok_or("relTime"))
            } else {
                None
            };
            match literal {
                Some(Ok(literal)) => return Ok(Expr::literal(literal)),
                Some(Err(what)) => {
                    return Err(lalrpop_util::ParseError::User { error: GrammarError::BadTime { at, what } });
                }
                None => {}
            }
        }
        let name = Name::new(name);
        let builtin = crate::functions::lookup(name);
        self.node(at, Node::Call(Call { name, builtin, args: args.into() }))
    }

    pub(crate) fn int(&self, i: i64) -> Expr {
        Expr::literal(Literal::Int(i))
    }

    pub(crate) fn real(&self, r: f64) -> Expr {
        Expr::literal(Literal::Real(r))
    }

    pub(crate) fn boolean(&self, b: bool) -> Expr {
        Expr::literal(Literal::Bool(b))
    }

    pub(crate) fn undefined(&self) -> Expr {
        Expr::literal(Literal::Undefined)
    }

    pub(crate) fn error(&self) -> Expr {
        Expr::literal(Literal::Error)
    }

    /// Adjacent string literals concatenate.
    pub(crate) fn string(&self, parts: Vec<Cow<'_, str>>) -> Expr {
        Expr::literal(Literal::Str(concat(parts).into()))
    }

    /// Adjacent quoted names concatenate.
    pub(crate) fn quoted_name(&self, parts: Vec<Cow<'_, str>>) -> Name {
        Name::new(&self.concat(parts))
    }

    pub(crate) fn concat(&self, parts: Vec<Cow<'_, str>>) -> String {
        concat(parts)
    }

    /// The attributes of an ad literal. As in libclassad, semicolons alone
    /// (`[;]`) and empty names are errors.
    pub(crate) fn attributes<'s>(
        &self,
        at: usize,
        items: Vec<Option<(Name, Expr)>>,
        last: Option<(Name, Expr)>,
    ) -> Result<Vec<(Name, Expr)>, LalrError<'s>> {
        let had_separators = !items.is_empty();
        let attrs: Vec<(Name, Expr)> = items.into_iter().flatten().chain(last).collect();
        if had_separators && attrs.is_empty() {
            return Err(lalrpop_util::ParseError::User { error: GrammarError::EmptyAd { at } });
        }
        if attrs.iter().any(|(name, _)| name.as_str().is_empty()) {
            return Err(lalrpop_util::ParseError::User { error: GrammarError::EmptyName { at } });
        }
        Ok(attrs)
    }
}

fn concat(parts: Vec<Cow<'_, str>>) -> String {
    let mut parts = parts.into_iter();
    let mut text = parts.next().map(Cow::into_owned).unwrap_or_default();
    for part in parts {
        text.push_str(&part);
    }
    text
}

/// A parser with configurable limits.
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
}

impl Parser {
    /// A parser with the given limits.
    pub fn new(limits: ParseLimits) -> Parser {
        Parser { limits }
    }

    /// The limits in force.
    pub fn limits(&self) -> ParseLimits {
        self.limits
    }

    /// Parses one expression in new ClassAd syntax.
    pub fn parse_expr(&self, source: &str) -> Result<Expr, ParseError> {
        if source.len() > self.limits.max_input {
            return Err(ParseError::at(
                source,
                self.limits.max_input,
                format!("input is larger than the limit of {} bytes", self.limits.max_input),
            ));
        }
        let builder = Builder { max_depth: self.limits.max_depth };
        let tokens = Lexer::new(source).map(|t| t.map_err(GrammarError::Lex));
        grammar::ExprParser::new().parse(&builder, tokens).map_err(|e| convert_error(source, e, self.limits.max_depth))
    }

    /// Parses an ad in new syntax: `[ name = expr; ... ]`.
    pub fn parse_ad(&self, source: &str) -> Result<ClassAd, ParseError> {
        let expr = self.parse_expr(source)?;
        match expr.0 {
            Repr::Node(node) => match &node.node {
                Node::Record(ad) => Ok(ClassAd::clone(ad)),
                _ => Err(not_an_ad(source)),
            },
            Repr::Lit(_) => Err(not_an_ad(source)),
        }
    }
}

fn not_an_ad(source: &str) -> ParseError {
    let start = source.len() - source.trim_start().len();
    ParseError::at(source, start, "expected a ClassAd `[ name = value; ... ]`")
}

fn convert_error(source: &str, error: LalrError<'_>, max_depth: u32) -> ParseError {
    use lalrpop_util::ParseError as E;
    let (offset, message, expected) = match error {
        E::InvalidToken { location } => (location, "invalid token".to_string(), Vec::new()),
        E::UnrecognizedEof { location, expected } => {
            (location, format!("unexpected end of input{}", describe_expected(&expected)), expected)
        }
        E::UnrecognizedToken { token: (start, token, _), expected } => {
            (start, format!("unexpected {token}{}", describe_expected(&expected)), expected)
        }
        E::ExtraToken { token: (start, token, _) } => (start, format!("unexpected {token} after the end"), Vec::new()),
        E::User { error } => match error {
            GrammarError::Lex(e) => (e.start, e.kind.message().to_string(), Vec::new()),
            GrammarError::TooDeep { at } => {
                (at, format!("expression nested deeper than the limit of {max_depth}"), Vec::new())
            }
            GrammarError::EmptyAd { at } => {
                (at, "an ad with separators needs at least one attribute".into(), Vec::new())
            }
            GrammarError::EmptyName { at } => (at, "an attribute name cannot be empty".into(), Vec::new()),
            GrammarError::BadTime { at, what } => (at, format!("unreadable {what}(\"...\") literal"), Vec::new()),
        },
    };
    let (line, column) = line_column(source, offset);
    let expected = expected.iter().map(|e| clean_terminal(e)).collect();
    ParseError { line, column, offset, message, expected }
}

/// `"\"(\""` → `(`.
fn clean_terminal(terminal: &str) -> String {
    terminal.trim_matches('"').replace("\\\"", "\"")
}

fn describe_expected(expected: &[String]) -> String {
    let names: Vec<String> = expected.iter().map(|e| clean_terminal(e)).collect();
    let operand = ["identifier", "integer", "string", "("];
    if operand.iter().all(|t| names.iter().any(|n| n == t)) && names.len() > 8 {
        return "; expected an expression".to_string();
    }
    match names.as_slice() {
        [] => String::new(),
        [one] => format!("; expected `{one}`"),
        many => {
            let list: Vec<String> = many.iter().map(|n| format!("`{n}`")).collect();
            format!("; expected one of {}", list.join(", "))
        }
    }
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

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GrammarError::Lex(e) => f.write_str(e.kind.message()),
            GrammarError::TooDeep { .. } => f.write_str("expression nested too deeply"),
            GrammarError::BadTime { what, .. } => write!(f, "unreadable {what} literal"),
            GrammarError::EmptyAd { .. } => f.write_str("an ad with separators needs at least one attribute"),
            GrammarError::EmptyName { .. } => f.write_str("an attribute name cannot be empty"),
        }
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
