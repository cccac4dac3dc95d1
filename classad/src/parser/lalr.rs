//! The LALRPOP grammar's side of parsing: the actions that build nodes and
//! the conversion of its errors, with the tokens expected, into
//! [`ParseError`].
//!
//! The grammar in `grammar.lalrpop` is the normative definition of the
//! syntax. The hand-written parser in [`descent`](super::descent) is the fast
//! path; whenever it cannot parse an input, the input is parsed here, so
//! every error is the grammar's and every accepted input is one the grammar
//! accepts (the test suite checks that both parsers build the same trees).

use std::borrow::Cow;
use std::fmt;

use super::build::{self, BuildError};
use super::error::{ParseError, ParseErrorKind};
use crate::expr::{BinaryOp, Expr, Literal, Node, UnaryOp};
use crate::lexer::{LexError, Lexer, Syntax, Token};
use crate::name::Name;

#[allow(clippy::all, clippy::unwrap_used, missing_docs, unused_qualifications, unused_parens)]
mod grammar {
    lalrpop_util::lalrpop_mod!(pub(crate) grammar, "/parser/grammar.rs");
    pub(crate) use grammar::ExprParser;
}

/// Errors raised by grammar actions and the lexer, before positions are
/// turned into lines and columns.
#[derive(Clone, Debug, PartialEq)]
pub enum GrammarError {
    /// A tokenizing error.
    Lex(LexError),
    /// A construct the node builder rejected, and where it starts.
    Build(BuildError, usize),
}

type LalrError<'s> = lalrpop_util::ParseError<usize, Token<'s>, GrammarError>;

/// Parses `source` with the grammar.
pub(super) fn parse(source: &str, syntax: Syntax, max_depth: u32) -> Result<Expr, ParseError> {
    let builder = Builder { max_depth };
    let tokens = Lexer::with_syntax(source, syntax).map(|t| t.map_err(GrammarError::Lex));
    grammar::ExprParser::new().parse(&builder, tokens).map_err(|e| convert_error(source, syntax, e, max_depth))
}

/// Builds nodes for the grammar's actions (see [`build`]), attaching
/// positions to their errors.
#[doc(hidden)]
pub struct Builder {
    max_depth: u32,
}

fn at<'s>(position: usize) -> impl FnOnce(BuildError) -> LalrError<'s> {
    move |error| lalrpop_util::ParseError::User { error: GrammarError::Build(error, position) }
}

impl Builder {
    fn node<'s>(&self, position: usize, node: Node) -> Result<Expr, LalrError<'s>> {
        build::node(node, self.max_depth).map_err(at(position))
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
        build::attr(name, self.max_depth).map_err(self::at(at))
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

    pub(crate) fn record<'s>(
        &self,
        position: usize,
        items: Vec<Option<(Name, Expr)>>,
        last: Option<(Name, Expr)>,
    ) -> Result<Expr, LalrError<'s>> {
        let had_separators = !items.is_empty();
        let attrs: Vec<(Name, Expr)> = items.into_iter().flatten().chain(last).collect();
        for (name, _) in &attrs {
            build::attribute_name(*name).map_err(at(position))?;
        }
        build::record(attrs, had_separators, self.max_depth).map_err(at(position))
    }

    pub(crate) fn call<'s>(&self, position: usize, name: &str, args: Vec<Expr>) -> Result<Expr, LalrError<'s>> {
        let name = self.name(position, name)?;
        build::call(name, args, self.max_depth).map_err(at(position))
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

    pub(crate) fn string(&self, parts: Vec<Cow<'_, str>>) -> Expr {
        Expr::literal(Literal::Str(build::concat(parts).into()))
    }

    /// Interns a name read from the input, within the `NameLimits`.
    pub(crate) fn name<'s>(&self, position: usize, text: &str) -> Result<Name, LalrError<'s>> {
        Name::try_new(text).map_err(|e| at(position)(e.into()))
    }

    pub(crate) fn quoted_name<'s>(&self, position: usize, parts: Vec<Cow<'_, str>>) -> Result<Name, LalrError<'s>> {
        self.name(position, &build::concat(parts))
    }

    pub(crate) fn concat(&self, parts: Vec<Cow<'_, str>>) -> String {
        build::concat(parts)
    }
}

fn convert_error(source: &str, syntax: Syntax, error: LalrError<'_>, max_depth: u32) -> ParseError {
    use lalrpop_util::ParseError as E;
    let (span, kind, message, expected) = match error {
        E::InvalidToken { location } => {
            (location..location, ParseErrorKind::InvalidToken, "invalid token".to_string(), Vec::new())
        }
        E::UnrecognizedEof { location, expected } => {
            let message = format!("unexpected end of input{}", describe_expected(&expected));
            (location..location, ParseErrorKind::UnexpectedEnd, message, expected)
        }
        E::UnrecognizedToken { token: (start, token, end), expected } => {
            let message = format!("unexpected {token}{}", describe_expected(&expected));
            (start..end, ParseErrorKind::UnexpectedToken, message, expected)
        }
        E::ExtraToken { token: (start, token, end) } => {
            (start..end, ParseErrorKind::TrailingToken, format!("unexpected {token} after the end"), Vec::new())
        }
        E::User { error } => match error {
            GrammarError::Lex(e) => {
                (e.start..e.end, ParseErrorKind::Lex(e.kind), e.kind.message().to_string(), Vec::new())
            }
            GrammarError::Build(error, at) => {
                // The builder works from the inside out: point where the
                // nesting passes the limit instead of the node it built.
                let at = match error {
                    BuildError::TooDeep => too_deep_at(source, syntax, at, max_depth),
                    _ => at,
                };
                (at..at, build_kind(error), build_message(error, max_depth), Vec::new())
            }
        },
    };
    let expected = expected.iter().map(|e| clean_terminal(e)).collect();
    ParseError::spanning(source, span, kind, message, expected)
}

/// Where an expression found nested too deep passes the limit, reading
/// from the left: the first opening bracket (`(`, `[`, `{`) nested
/// `max_depth` levels deep. Depth made of operators has no bracket to
/// point at: then `found`, where the builder found a node too deep (from
/// the inside out, so the outermost one).
fn too_deep_at(source: &str, syntax: Syntax, found: usize, max_depth: u32) -> usize {
    let mut depth = 0u32;
    for token in Lexer::with_syntax(source, syntax) {
        match token {
            Ok((offset, Token::Punct("(" | "[" | "{"), _)) => {
                depth += 1;
                if depth >= max_depth {
                    return offset;
                }
            }
            Ok((_, Token::Punct(")" | "]" | "}"), _)) => depth = depth.saturating_sub(1),
            Ok(_) => {}
            Err(_) => break,
        }
    }
    found
}

fn build_kind(error: BuildError) -> ParseErrorKind {
    match error {
        BuildError::TooDeep => ParseErrorKind::TooDeep,
        BuildError::BadTime(_) => ParseErrorKind::BadTime,
        BuildError::EmptyAd => ParseErrorKind::EmptyAd,
        BuildError::EmptyName => ParseErrorKind::EmptyName,
        BuildError::TooManyNames(_) => ParseErrorKind::TooManyNames,
    }
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

fn build_message(error: BuildError, max_depth: u32) -> String {
    match error {
        BuildError::TooDeep => format!("expression nested deeper than the limit of {max_depth}"),
        BuildError::BadTime(what) => format!("unreadable {what}(\"...\") literal"),
        BuildError::EmptyAd => "an ad with separators needs at least one attribute".into(),
        BuildError::EmptyName => "an attribute name cannot be empty".into(),
        BuildError::TooManyNames(error) => error.to_string(),
    }
}

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GrammarError::Lex(e) => f.write_str(e.kind.message()),
            GrammarError::Build(error, _) => f.write_str(&build_message(*error, 0)),
        }
    }
}
