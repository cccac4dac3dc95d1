//! The fast path: a hand-written recursive-descent parser with precedence
//! climbing, over the same logos tokens as the grammar.
//!
//! It accepts exactly the inputs the grammar accepts and builds the same
//! trees (checked by the differential tests in `tests/parsers.rs`), but it
//! does not explain failures: when it gives up, the caller parses the input
//! again with the grammar, which reports the error with its position and
//! the tokens it expected. It costs a few nanoseconds per token, where the
//! LR parser walks every operand through one reduction per precedence level.

use logos::Logos;

use super::build::{self, BuildError};
use crate::ad::ClassAd;
use crate::expr::{BinaryOp, Expr, Literal, Node, UnaryOp};
use crate::lexer::{parse_int, parse_real, RawToken};
use crate::name::Name;

/// The input cannot be parsed by this parser (the grammar says why).
pub(super) struct GiveUp;

impl From<BuildError> for GiveUp {
    fn from(_: BuildError) -> GiveUp {
        GiveUp
    }
}

type Parsed<T> = Result<T, GiveUp>;

/// How often (in levels of recursion) the parser checks that enough stack
/// is left, growing it on the heap when not.
const STACK_CHECK_INTERVAL: u32 = 16;

/// The current token.
#[derive(Clone, Debug, PartialEq)]
enum Current<'s> {
    Token(RawToken<'s>),
    End,
    /// A lexing error: the parse gives up when it reaches it.
    Invalid,
}

pub(super) struct Descent<'s> {
    lexer: logos::Lexer<'s, RawToken<'s>>,
    current: Current<'s>,
    /// Byte offsets of the current token.
    start: usize,
    end: usize,
    max_depth: u32,
    /// Current recursion depth, bounded by `max_depth`.
    depth: u32,
}

/// Parses a whole expression.
pub(super) fn parse_expr(source: &str, max_depth: u32) -> Parsed<Expr> {
    let mut parser = Descent::new(source, max_depth);
    let expr = parser.expr()?;
    parser.finish(expr)
}

/// Parses a whole ad `[ ... ]`.
pub(super) fn parse_ad(source: &str, max_depth: u32) -> Parsed<ClassAd> {
    let mut parser = Descent::new(source, max_depth);
    if parser.current != Current::Token(RawToken::LBracket) {
        return Err(GiveUp);
    }
    parser.advance();
    let ad = parser.record_body()?;
    parser.finish(ad)
}

/// The operator a token stands for between two operands, with its
/// precedence (higher binds tighter).
fn binary_operator(token: &Current<'_>) -> Option<(BinaryOp, u8)> {
    use RawToken as T;
    let Current::Token(token) = token else {
        return None;
    };
    Some(match token {
        T::OrOr => (BinaryOp::Or, 1),
        T::AndAnd => (BinaryOp::And, 2),
        T::Pipe => (BinaryOp::BitOr, 3),
        T::Caret => (BinaryOp::BitXor, 4),
        T::Amp => (BinaryOp::BitAnd, 5),
        T::EqEq => (BinaryOp::Eq, 6),
        T::NotEq => (BinaryOp::Ne, 6),
        T::MetaEq | T::Is => (BinaryOp::Is, 6),
        T::MetaNe | T::Isnt => (BinaryOp::Isnt, 6),
        T::Lt => (BinaryOp::Lt, 7),
        T::Le => (BinaryOp::Le, 7),
        T::Gt => (BinaryOp::Gt, 7),
        T::Ge => (BinaryOp::Ge, 7),
        T::Shl => (BinaryOp::Shl, 8),
        T::Shr => (BinaryOp::Shr, 8),
        T::UShr => (BinaryOp::UShr, 8),
        T::Plus => (BinaryOp::Add, 9),
        T::Minus => (BinaryOp::Sub, 9),
        T::Star => (BinaryOp::Mul, 10),
        T::Slash => (BinaryOp::Div, 10),
        T::Percent => (BinaryOp::Mod, 10),
        _ => return None,
    })
}

impl<'s> Descent<'s> {
    fn new(source: &'s str, max_depth: u32) -> Descent<'s> {
        let mut parser =
            Descent { lexer: RawToken::lexer(source), current: Current::End, start: 0, end: 0, max_depth, depth: 0 };
        parser.advance();
        parser
    }

    fn advance(&mut self) {
        self.current = match self.lexer.next() {
            Some(Ok(token)) => Current::Token(token),
            Some(Err(_)) => Current::Invalid,
            None => Current::End,
        };
        let span = self.lexer.span();
        self.start = span.start;
        self.end = span.end;
    }

    fn is(&self, token: RawToken<'_>) -> bool {
        matches!(&self.current, Current::Token(t) if *t == token)
    }

    fn expect(&mut self, token: RawToken<'_>) -> Parsed<()> {
        if !self.is(token) {
            return Err(GiveUp);
        }
        self.advance();
        Ok(())
    }

    fn finish<T>(&self, value: T) -> Parsed<T> {
        match self.current {
            Current::End => Ok(value),
            _ => Err(GiveUp),
        }
    }

    fn node(&self, node: Node) -> Parsed<Expr> {
        Ok(build::node(node, self.max_depth)?)
    }

    /// Runs `f` one level deeper, within the depth limit and with enough
    /// stack.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Parsed<T>) -> Parsed<T> {
        if self.depth >= self.max_depth {
            return Err(GiveUp);
        }
        self.depth += 1;
        let result = if self.depth % STACK_CHECK_INTERVAL == 0 {
            stacker::maybe_grow(64 * 1024, 1024 * 1024, || f(self))
        } else {
            f(self)
        };
        self.depth -= 1;
        result
    }

    /// `cond ? then : else` (right-associative), or a binary expression.
    fn expr(&mut self) -> Parsed<Expr> {
        self.nested(|p| {
            let cond = p.binary(1)?;
            if !p.is(RawToken::Question) {
                return Ok(cond);
            }
            p.advance();
            let then = p.expr()?;
            p.expect(RawToken::Colon)?;
            let otherwise = p.expr()?;
            p.node(Node::Cond(cond, then, otherwise))
        })
    }

    /// Left-associative binary operators of precedence `min` and above.
    fn binary(&mut self, min: u8) -> Parsed<Expr> {
        let mut left = self.unary()?;
        while let Some((op, precedence)) = binary_operator(&self.current) {
            if precedence < min {
                break;
            }
            self.advance();
            let right = self.binary(precedence + 1)?;
            left = self.node(Node::Binary(op, left, right))?;
        }
        Ok(left)
    }

    fn unary(&mut self) -> Parsed<Expr> {
        let op = match &self.current {
            Current::Token(RawToken::Minus) => {
                if let Some(literal) = self.negative_literal()? {
                    return self.postfix(literal);
                }
                // The `-` is consumed; its operand starts at the current token.
                let operand = self.nested(Self::unary)?;
                return self.node(Node::Unary(UnaryOp::Neg, operand));
            }
            Current::Token(RawToken::Plus) => UnaryOp::Plus,
            Current::Token(RawToken::Bang) => UnaryOp::Not,
            Current::Token(RawToken::Tilde) => UnaryOp::BitNot,
            _ => {
                let primary = self.primary()?;
                return self.postfix(primary);
            }
        };
        self.advance();
        let operand = self.nested(Self::unary)?;
        self.node(Node::Unary(op, operand))
    }

    /// At a `-`: consumes it and, if a number follows with nothing in
    /// between, that number too, giving the negative literal.
    fn negative_literal(&mut self) -> Parsed<Option<Expr>> {
        let minus_end = self.end;
        self.advance();
        if self.start != minus_end {
            return Ok(None);
        }
        let literal = match &self.current {
            Current::Token(RawToken::Digits(digits)) => Literal::Int(parse_int(digits, true).map_err(|_| GiveUp)?),
            Current::Token(RawToken::RealText(text)) => Literal::Real(-parse_real(text)),
            _ => return Ok(None),
        };
        self.advance();
        Ok(Some(Expr::literal(literal)))
    }

    /// Selections and subscripts after `base`, then Elvis operators, whose
    /// right operands are selections.
    fn postfix(&mut self, base: Expr) -> Parsed<Expr> {
        let mut expr = self.selection(base)?;
        while self.is(RawToken::Elvis) {
            self.advance();
            let primary = self.primary()?;
            let right = self.selection(primary)?;
            expr = self.node(Node::Elvis(expr, right))?;
        }
        Ok(expr)
    }

    fn selection(&mut self, mut expr: Expr) -> Parsed<Expr> {
        loop {
            match &self.current {
                Current::Token(RawToken::Dot) => {
                    self.advance();
                    let name = self.name()?;
                    expr = self.node(Node::Select(expr, name))?;
                }
                Current::Token(RawToken::LBracket) => {
                    self.advance();
                    let index = self.expr()?;
                    self.expect(RawToken::RBracket)?;
                    expr = self.node(Node::Index(expr, index))?;
                }
                _ => return Ok(expr),
            }
        }
    }

    /// An attribute name: an identifier or (adjacent) quoted names.
    fn name(&mut self) -> Parsed<Name> {
        match &self.current {
            Current::Token(RawToken::Ident(name)) => {
                let name = Name::new(name);
                self.advance();
                Ok(name)
            }
            Current::Token(RawToken::QuotedName(_)) => Ok(Name::new(&self.quoted_names())),
            _ => Err(GiveUp),
        }
    }

    /// Adjacent quoted names, concatenated.
    fn quoted_names(&mut self) -> String {
        let mut text = String::new();
        while let Current::Token(RawToken::QuotedName(part)) = &self.current {
            text.push_str(part);
            self.advance();
        }
        text
    }

    fn primary(&mut self) -> Parsed<Expr> {
        use RawToken as T;
        let literal = match &self.current {
            Current::Token(T::Digits(digits)) => Literal::Int(parse_int(digits, false).map_err(|_| GiveUp)?),
            Current::Token(T::RealText(text)) => Literal::Real(parse_real(text)),
            Current::Token(T::True) => Literal::Bool(true),
            Current::Token(T::False) => Literal::Bool(false),
            Current::Token(T::Undefined) => Literal::Undefined,
            Current::Token(T::Error) => Literal::Error,
            Current::Token(T::Str(first)) => {
                let mut text = first.to_string();
                self.advance();
                while let Current::Token(T::Str(part)) = &self.current {
                    text.push_str(part);
                    self.advance();
                }
                return Ok(Expr::literal(Literal::Str(text.into())));
            }
            Current::Token(T::Ident(name)) => {
                let name: &'s str = name;
                self.advance();
                return self.call_or_attribute(name);
            }
            Current::Token(T::QuotedName(_)) => {
                let name = self.quoted_names();
                return self.call_or_attribute(&name);
            }
            Current::Token(T::Dot) => {
                self.advance();
                let name = self.name()?;
                return self.node(Node::RootAttr(name));
            }
            Current::Token(T::LParen) => {
                self.advance();
                let inner = self.expr()?;
                self.expect(T::RParen)?;
                return self.node(Node::Paren(inner));
            }
            Current::Token(T::LBrace) => {
                self.advance();
                let items = self.nested(|p| p.comma_list(T::RBrace))?;
                return self.node(Node::List(items.into()));
            }
            Current::Token(T::LBracket) => {
                self.advance();
                let ad = self.nested(Self::record_body)?;
                return self.node(Node::Record(std::sync::Arc::new(ad)));
            }
            Current::Token(T::Minus) => return self.negative_literal()?.ok_or(GiveUp),
            _ => return Err(GiveUp),
        };
        self.advance();
        Ok(Expr::literal(literal))
    }

    /// After a name: a call if `(` follows, else an attribute reference.
    fn call_or_attribute(&mut self, name: &str) -> Parsed<Expr> {
        if !self.is(RawToken::LParen) {
            return self.node(Node::Attr(Name::new(name)));
        }
        self.advance();
        let args = self.nested(|p| p.comma_list(RawToken::RParen))?;
        Ok(build::call(name, args, self.max_depth)?)
    }

    /// `a, b, c` up to and including `close` (no trailing comma).
    fn comma_list(&mut self, close: RawToken<'static>) -> Parsed<Vec<Expr>> {
        let mut items = Vec::new();
        if self.is(close.clone()) {
            self.advance();
            return Ok(items);
        }
        loop {
            items.push(self.expr()?);
            match &self.current {
                Current::Token(RawToken::Comma) => self.advance(),
                Current::Token(token) if *token == close => {
                    self.advance();
                    return Ok(items);
                }
                _ => return Err(GiveUp),
            }
        }
    }

    /// The attributes of an ad after its `[`, up to and including `]`.
    fn record_body(&mut self) -> Parsed<ClassAd> {
        let mut attrs = Vec::new();
        let mut had_separators = false;
        loop {
            while self.is(RawToken::Semi) {
                had_separators = true;
                self.advance();
            }
            if self.is(RawToken::RBracket) {
                self.advance();
                break;
            }
            let name = self.name()?;
            self.expect(RawToken::Assign)?;
            attrs.push((name, self.expr()?));
            match &self.current {
                Current::Token(RawToken::Semi) => {}
                Current::Token(RawToken::RBracket) => {
                    self.advance();
                    break;
                }
                _ => return Err(GiveUp),
            }
        }
        Ok(build::ad(attrs, had_separators)?)
    }
}
